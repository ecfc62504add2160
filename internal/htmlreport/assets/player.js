// readme2demo report page: renders command outputs lazily and plays the
// embedded asciicast v2 recording. Every string from the log becomes a DOM
// text node (textContent or createTextNode), never markup.
(function () {
  "use strict";
  function json(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }
  var cast = json("r2d-meta");
  var chunks = {};
  // output returns command i's output, parsing its chunk on first use.
  function output(i) {
    var c = Math.floor(i / cast.chunk);
    if (!chunks[c]) { chunks[c] = json("r2d-out-" + c) || []; }
    return chunks[c][i - c * cast.chunk] || "";
  }

  // ---- terminal model: cells with styles; SGR colours, CR, LF, BS, TAB ----
  var PLAIN = { fg: -1, bg: -1, b: false, d: false, i: false, u: false, inv: false };

  function rgbOf(n) {
    // colour 16..255 of the xterm palette, or a packed 24-bit colour
    if (n >= 0x1000000) {
      n -= 0x1000000;
      return "rgb(" + ((n >> 16) & 255) + "," + ((n >> 8) & 255) + "," + (n & 255) + ")";
    }
    if (n >= 232) {
      var g = 8 + (n - 232) * 10;
      return "rgb(" + g + "," + g + "," + g + ")";
    }
    n -= 16;
    var lv = [0, 95, 135, 175, 215, 255];
    return "rgb(" + lv[Math.floor(n / 36) % 6] + "," + lv[Math.floor(n / 6) % 6] + "," + lv[n % 6] + ")";
  }

  function byte(v) {
    v = parseInt(v, 10);
    return isNaN(v) ? 0 : Math.max(0, Math.min(255, v));
  }

  function sgr(params, st) {
    var p = params === "" ? ["0"] : params.split(/[;:]/);
    var s = { fg: st.fg, bg: st.bg, b: st.b, d: st.d, i: st.i, u: st.u, inv: st.inv };
    for (var k = 0; k < p.length; k++) {
      var n = p[k] === "" ? 0 : parseInt(p[k], 10);
      if (n === 0) { s = { fg: -1, bg: -1, b: false, d: false, i: false, u: false, inv: false }; }
      else if (n === 1) { s.b = true; }
      else if (n === 2) { s.d = true; }
      else if (n === 3) { s.i = true; }
      else if (n === 4) { s.u = true; }
      else if (n === 7) { s.inv = true; }
      else if (n === 22) { s.b = false; s.d = false; }
      else if (n === 23) { s.i = false; }
      else if (n === 24) { s.u = false; }
      else if (n === 27) { s.inv = false; }
      else if (n >= 30 && n <= 37) { s.fg = n - 30; }
      else if (n === 39) { s.fg = -1; }
      else if (n >= 40 && n <= 47) { s.bg = n - 40; }
      else if (n === 49) { s.bg = -1; }
      else if (n >= 90 && n <= 97) { s.fg = n - 90 + 8; }
      else if (n >= 100 && n <= 107) { s.bg = n - 100 + 8; }
      else if (n === 38 || n === 48) {
        var c = -1;
        if (p[k + 1] === "5" && k + 2 < p.length) { c = byte(p[k + 2]); k += 2; }
        else if (p[k + 1] === "2" && k + 4 < p.length) {
          c = 0x1000000 + (byte(p[k + 2]) << 16) + (byte(p[k + 3]) << 8) + byte(p[k + 4]); k += 4;
        } else { break; }
        if (n === 38) { s.fg = c; } else { s.bg = c; }
      }
    }
    return s;
  }

  function Term(cols, maxLines) {
    this.cols = cols || 0;
    this.maxLines = maxLines || 0;
    this.reset();
  }
  Term.prototype.reset = function () {
    this.lines = [{ ch: [], st: [] }];
    this.row = 0;
    this.col = 0;
    this.style = PLAIN;
    this.esc = 0; // 0 text, 1 after ESC, 2 CSI, 3 OSC, 4 OSC after ESC, 5 charset
    this.params = "";
  };
  Term.prototype.newline = function () {
    this.row++;
    if (this.row >= this.lines.length) { this.lines.push({ ch: [], st: [] }); }
    if (this.maxLines && this.lines.length > this.maxLines) {
      this.lines.splice(0, this.lines.length - this.maxLines);
      this.row = this.lines.length - 1;
    }
  };
  Term.prototype.put = function (c) {
    if (this.cols && this.col >= this.cols) { this.newline(); this.col = 0; }
    var line = this.lines[this.row];
    while (line.ch.length < this.col) { line.ch.push(" "); line.st.push(PLAIN); }
    line.ch[this.col] = c;
    line.st[this.col] = this.style;
    this.col++;
  };
  Term.prototype.csi = function (final) {
    var line = this.lines[this.row];
    if (final === "m" && this.params.charAt(0) !== "?") {
      this.style = sgr(this.params, this.style);
    } else if (final === "K") { // erase in line
      var mode = this.params === "" ? 0 : parseInt(this.params, 10);
      if (mode === 0) { line.ch.length = Math.min(line.ch.length, this.col); line.st.length = line.ch.length; }
      else if (mode === 2) { line.ch = []; line.st = []; }
    } else if (final === "G") { // cursor to column
      this.col = Math.max(0, (parseInt(this.params, 10) || 1) - 1);
    }
    // other sequences (cursor movement, screen clearing) are ignored
  };
  Term.prototype.write = function (s) {
    for (var idx = 0; idx < s.length; idx++) {
      var c = s.charAt(idx);
      var code = s.charCodeAt(idx);
      if (code >= 0xd800 && code <= 0xdbff && idx + 1 < s.length) { c = s.substr(idx, 2); idx++; }
      switch (this.esc) {
        case 1:
          if (c === "[") { this.esc = 2; this.params = ""; }
          else if (c === "]") { this.esc = 3; }
          else if (c === "(" || c === ")") { this.esc = 5; }
          else { this.esc = 0; }
          continue;
        case 2:
          if (code >= 0x40 && code <= 0x7e) { this.esc = 0; this.csi(c); }
          else if (code < 0x20 || code > 0x3f || this.params.length > 64) { this.esc = 0; }
          else { this.params += c; }
          continue;
        case 3:
          if (code === 7) { this.esc = 0; } else if (code === 27) { this.esc = 4; }
          continue;
        case 4:
          this.esc = c === "\\" ? 0 : 3;
          continue;
        case 5:
          this.esc = 0;
          continue;
      }
      if (code === 27) { this.esc = 1; }
      else if (c === "\n") { this.newline(); this.col = 0; }
      else if (c === "\r") { this.col = 0; }
      else if (code === 8) { if (this.col > 0) { this.col--; } }
      else if (c === "\t") { do { this.put(" "); } while (this.col % 8 !== 0); }
      else if (code < 0x20 || code === 0x7f) { /* other control characters: dropped */ }
      else { this.put(c); }
    }
  };

  function classesOf(st) {
    var fg = st.fg, bg = st.bg, cls = [], css = {};
    if (st.inv) { var t = fg; fg = bg; bg = t; if (fg === -1) { cls.push("fgi"); } if (bg === -1) { cls.push("bgi"); } }
    if (fg >= 0 && fg < 16) { cls.push("fg" + fg); } else if (fg >= 16) { css.color = rgbOf(fg); }
    if (bg >= 0 && bg < 16) { cls.push("bg" + bg); } else if (bg >= 16) { css.background = rgbOf(bg); }
    if (st.b) { cls.push("b"); }
    if (st.d) { cls.push("d"); }
    if (st.i) { cls.push("i"); }
    if (st.u) { cls.push("u"); }
    return { cls: cls, css: css };
  }

  // appendLine adds one terminal line to parent as text nodes and spans.
  function appendLine(parent, line) {
    var start = 0;
    for (var k = 1; k <= line.ch.length; k++) {
      if (k < line.ch.length && line.st[k] === line.st[start]) { continue; }
      var text = line.ch.slice(start, k).join("");
      var st = line.st[start];
      if (st === PLAIN) {
        parent.appendChild(document.createTextNode(text));
      } else {
        var span = document.createElement("span");
        var look = classesOf(st);
        if (look.cls.length) { span.className = look.cls.join(" "); }
        if (look.css.color) { span.style.color = look.css.color; }
        if (look.css.background) { span.style.background = look.css.background; }
        span.textContent = text;
        parent.appendChild(span);
      }
      start = k;
    }
  }

  var OMITTED = /^\[\.\.\. readme2demo: \d+ bytes of output omitted\b.*\.\.\.\]$/;

  function renderOutput(pre) {
    if (pre.getAttribute("data-done")) { return; }
    pre.setAttribute("data-done", "1");
    var text = output(+pre.getAttribute("data-i"));
    var term = new Term(0, 0);
    term.write(text.replace(/\r\n/g, "\n"));
    var lines = term.lines;
    if (lines.length > 1 && lines[lines.length - 1].ch.length === 0) { lines = lines.slice(0, -1); }
    var frag = document.createDocumentFragment();
    for (var k = 0; k < lines.length; k++) {
      if (k > 0) { frag.appendChild(document.createTextNode("\n")); }
      var plain = lines[k].ch.join("");
      if (OMITTED.test(plain)) {
        var span = document.createElement("span");
        span.className = "omitted";
        span.textContent = plain;
        frag.appendChild(span);
      } else {
        appendLine(frag, lines[k]);
      }
    }
    pre.appendChild(frag);
  }

  // ---- lazy outputs: render when a command is open and near the screen ----
  var observer = null;
  if ("IntersectionObserver" in window) {
    observer = new IntersectionObserver(function (entries) {
      for (var k = 0; k < entries.length; k++) {
        if (entries[k].isIntersecting) {
          renderOutput(entries[k].target);
          observer.unobserve(entries[k].target);
        }
      }
    }, { rootMargin: "600px 0px" });
  }
  function watch(details) {
    var pre = details.querySelector("pre.out");
    if (!pre || pre.getAttribute("data-done")) { return; }
    if (observer) { observer.observe(pre); } else { renderOutput(pre); }
  }
  var opened = document.querySelectorAll("#timeline details[open]");
  for (var k = 0; k < opened.length; k++) { watch(opened[k]); }
  document.addEventListener("toggle", function (ev) {
    var t = ev.target;
    if (t && t.tagName === "DETAILS" && t.open) { watch(t); }
  }, true);

  var timeline = document.getElementById("timeline");
  document.getElementById("problems").addEventListener("change", function (ev) {
    timeline.classList.toggle("only-problems", ev.target.checked);
  });
  function setAll(open) {
    var all = timeline.querySelectorAll("details");
    for (var k = 0; k < all.length; k++) { all[k].open = open; }
  }
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });

  // ---- the player ----
  var player = document.getElementById("player");
  var screen = document.getElementById("screen");
  var playBtn = document.getElementById("play");
  var seekBar = document.getElementById("seek");
  var clock = document.getElementById("clock");
  var speedSel = document.getElementById("speed");
  var atLabel = document.getElementById("at");
  var eventChunks = {};
  var eventCount = cast.event_count || 0;
  // ev returns cast event i, parsing its chunk on first use.
  function ev(i) {
    var c = Math.floor(i / cast.event_chunk);
    if (!eventChunks[c]) { eventChunks[c] = json("r2d-events-" + c) || []; }
    return eventChunks[c][i - c * cast.event_chunk];
  }
  var marks = cast.marks || [];
  var duration = cast.duration || 0;
  var rows = cast.height || 30;
  var term = new Term(cast.width || 100, rows);
  var next = 0;   // index of the next event to apply
  var pos = 0;    // cast time shown, seconds
  var playing = false;
  var wallStart = 0, posStart = 0, frame = 0;

  screen.style.minHeight = (rows * 1.3) + "em";

  function fmt(t) {
    t = Math.floor(t);
    var s = t % 60;
    return Math.floor(t / 60) + ":" + (s < 10 ? "0" : "") + s;
  }
  function commandAt(t) {
    var i = -1;
    for (var k = 0; k < marks.length && marks[k] <= t; k++) { i = k; }
    return i;
  }
  function draw() {
    var frag = document.createDocumentFragment();
    var lines = term.lines;
    var from = Math.max(0, lines.length - rows);
    for (var k = from; k < lines.length; k++) {
      if (k > from) { frag.appendChild(document.createTextNode("\n")); }
      appendLine(frag, lines[k]);
    }
    screen.textContent = "";
    screen.appendChild(frag);
    seekBar.value = pos.toFixed(2);
    clock.textContent = fmt(pos) + " / " + fmt(duration);
    var i = commandAt(pos);
    player.setAttribute("data-command", i < 0 ? "" : String(i + 1));
    atLabel.textContent = i < 0 ? "" : "command " + (i + 1) + " of " + marks.length;
  }
  var PROMPT = "\u001b[1;32m$\u001b[0m "; // internal/demo's prompt, printed before each command
  // firstAfter returns the index of the first event later than t.
  function firstAfter(t) {
    var lo = 0, hi = eventCount;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (ev(mid)[0] <= t) { lo = mid + 1; } else { hi = mid; }
    }
    return lo;
  }
  // restartFor returns where to start replaying so that the screen is
  // right at event k: a prompt with at least a screenful of lines after
  // it (everything before has scrolled off), or the start.
  function restartFor(k) {
    var lines = 0;
    for (var j = k - 1; j >= 0; j--) {
      var d = ev(j)[1];
      for (var p = d.indexOf("\n"); p >= 0; p = d.indexOf("\n", p + 1)) { lines++; }
      if (lines > rows && d === PROMPT) { return j; }
    }
    return 0;
  }
  function apply(t) {
    var back = next > 0 && ev(next - 1)[0] > t;
    if (back || (eventCount - next > 500 && t - pos > 30)) {
      var k = firstAfter(t);
      if (back || k - next > 500) {
        var j = restartFor(k);
        if (back || j > next) { term.reset(); next = j; }
      }
    }
    while (next < eventCount && ev(next)[0] <= t) {
      term.write(ev(next)[1]);
      next++;
    }
    pos = t;
  }
  function setState(s) {
    player.setAttribute("data-state", s);
    playBtn.textContent = s === "playing" ? "Pause" : (s === "ended" ? "Replay" : "Play");
  }
  function tick() {
    frame = 0;
    if (!playing) { return; }
    var t = posStart + (performance.now() - wallStart) / 1000 * parseFloat(speedSel.value);
    if (t >= duration) {
      apply(duration);
      playing = false;
      draw();
      setState("ended");
      return;
    }
    apply(t);
    draw();
    schedule();
  }
  function schedule() {
    if (!frame) { frame = requestAnimationFrame(tick); }
  }
  function play() {
    if (pos >= duration) { apply(0); }
    playing = true;
    wallStart = performance.now();
    posStart = pos;
    setState("playing");
    schedule();
  }
  function pause() {
    playing = false;
    setState("paused");
  }
  function seek(t) {
    t = Math.max(0, Math.min(duration, t));
    apply(t);
    if (playing) { wallStart = performance.now(); posStart = t; }
    else { setState(t >= duration && duration > 0 ? "ended" : "paused"); }
    draw();
  }
  function jump(i) {
    if (i < 0 || i >= marks.length) { return; }
    seek(marks[i]);
    if (!playing) { play(); }
  }
  playBtn.addEventListener("click", function () { if (playing) { pause(); } else { play(); } });
  seekBar.addEventListener("input", function () { seek(parseFloat(seekBar.value)); });
  speedSel.addEventListener("change", function () {
    if (playing) { posStart = pos; wallStart = performance.now(); }
  });
  document.getElementById("prev").addEventListener("click", function () {
    var i = commandAt(pos);
    if (i >= 0 && pos - marks[i] < 1) { i--; }
    jump(Math.max(0, i));
  });
  document.getElementById("next").addEventListener("click", function () { jump(commandAt(pos) + 1); });
  timeline.addEventListener("click", function (ev) {
    var b = ev.target;
    if (b && b.classList && b.classList.contains("jump")) {
      jump(+b.getAttribute("data-i"));
      player.scrollIntoView({ block: "nearest" });
    }
  });
  if (!marks.length) {
    document.getElementById("prev").disabled = true;
    document.getElementById("next").disabled = true;
    var jumps = timeline.querySelectorAll("button.jump");
    for (var j = 0; j < jumps.length; j++) { jumps[j].hidden = true; }
  }
  draw();
  player.setAttribute("data-ready-ms", String(Math.round(performance.now())));
  player.setAttribute("data-ready", "1");
})();
