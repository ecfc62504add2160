package htmlreport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// browser is headless Chromium driven over the Chrome DevTools Protocol on
// --remote-debugging-pipe (fd 3 in, fd 4 out, messages ended by NUL): no
// WebSocket, no port, no npm package.
type browser struct {
	cmd     *exec.Cmd
	w       io.WriteCloser
	session string

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpMessage
	events  []cdpMessage
	notify  chan struct{}
	done    chan struct{}
	readErr error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// chromiumFlags are the flags Chromium needs on a closed network in a
// container.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
	"--disable-sync", "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
	"--window-size=1280,1000", "--remote-debugging-pipe",
}

// findChromium returns Debian's chromium for a long test (longtest), skipping the test when it is
// missing outside CI and failing it in CI.
func findChromium(t *testing.T) string {
	t.Helper()
	longtest.Require(t) // a real browser: seconds to start and render
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); CI runs this test")
	return ""
}

// startBrowser starts Chromium with a fresh profile and attaches to a new
// page. It is stopped when the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := findChromium(t)
	profile := t.TempDir()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+profile, "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{inR, outW} // fd 3: commands in, fd 4: replies out
	stderr, err := os.Create(filepath.Join(profile, "..", "chromium.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	inR.Close()
	outW.Close()
	b := &browser{cmd: cmd, w: inW, pending: map[int]chan cdpMessage{}, notify: make(chan struct{}, 1), done: make(chan struct{})}
	go b.read(outR)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = b.call(ctx, "", "Browser.close", nil)
		cancel()
		inW.Close()
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		stderr.Close()
		if t.Failed() {
			if log, err := os.ReadFile(stderr.Name()); err == nil {
				t.Logf("chromium stderr (tail):\n%s", tail(string(log), 3000))
			}
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.callInto(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		t.Fatalf("create page: %v", err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.callInto(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatalf("attach to page: %v", err)
	}
	b.session = attached.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Network.enable", "Log.enable"} {
		if _, err := b.call(ctx, b.session, m, nil); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return b
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (b *browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("read devtools pipe: %w", err)
			for _, ch := range b.pending {
				close(ch)
			}
			b.pending = map[int]chan cdpMessage{}
			b.mu.Unlock()
			close(b.done)
			return
		}
		var m cdpMessage
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else if m.Method != "" {
			b.events = append(b.events, m)
			if m.Method == "Page.javascriptDialogOpening" {
				// Dismiss it so the page does not hang; problems() reports it.
				go func(session string) {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					_, _ = b.call(ctx, session, "Page.handleJavaScriptDialog", map[string]any{"accept": false})
				}(m.SessionID)
			}
			select {
			case b.notify <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends one command (to the page session when session is set) and
// waits for its reply.
func (b *browser) call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return nil, b.readErr
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		return nil, err
	}
	if _, err := b.w.Write(append(msg, 0)); err != nil {
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: browser went away", method)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (b *browser) callInto(ctx context.Context, session, method string, params, out any) error {
	res, err := b.call(ctx, session, method, params)
	if err != nil {
		return err
	}
	return json.Unmarshal(res, out)
}

// eventsNamed returns the events of the page session so far with this
// method.
func (b *browser) eventsNamed(method string) []cdpMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []cdpMessage
	for _, e := range b.events {
		if e.Method == method {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits until an event with this method has arrived after the
// first `after` of them.
func (b *browser) waitEvent(ctx context.Context, method string, after int) error {
	for {
		if len(b.eventsNamed(method)) > after {
			return nil
		}
		select {
		case <-b.notify:
		case <-time.After(50 * time.Millisecond):
		case <-b.done:
			return errors.New("browser went away")
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", method, ctx.Err())
		}
	}
}

// navigate opens url in the page and waits for its load event.
func (b *browser) navigate(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	before := len(b.eventsNamed("Page.loadEventFired"))
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.callInto(ctx, b.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if nav.ErrorText != "" {
		t.Fatalf("navigate %s: %s", url, nav.ErrorText)
	}
	if err := b.waitEvent(ctx, "Page.loadEventFired", before); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
}

// eval runs a JavaScript expression in the page (awaiting a promise) and
// decodes its value into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	if err := b.evalErr(expr, out); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) evalErr(expr string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := b.callInto(ctx, b.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true,
	}, &res)
	if err != nil {
		return fmt.Errorf("evaluate %.80q: %w", expr, err)
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("evaluate %.80q: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("evaluate %.80q: no value", expr)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// waitTrue polls a JavaScript condition until it holds.
func (b *browser) waitTrue(t *testing.T, cond string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		b.eval(t, "!!("+cond+")", &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, cond)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot saves a PNG of the page.
func (b *browser) screenshot(t *testing.T, path string, fullPage bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var shot struct {
		Data []byte `json:"data"` // base64 in JSON
	}
	if err := b.callInto(ctx, b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": fullPage}, &shot); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// problems returns what went wrong in the page: uncaught exceptions,
// console errors and browser log entries (CSP violations among them), and
// dialogs (alert, confirm, prompt).
func (b *browser) problems() []string {
	var out []string
	for _, e := range b.eventsNamed("Runtime.exceptionThrown") {
		out = append(out, "exception: "+string(e.Params))
	}
	for _, e := range b.eventsNamed("Runtime.consoleAPICalled") {
		if strings.Contains(string(e.Params), `"type":"error"`) || strings.Contains(string(e.Params), `"type":"warning"`) {
			out = append(out, "console: "+string(e.Params))
		}
	}
	for _, e := range b.eventsNamed("Log.entryAdded") {
		out = append(out, "log: "+string(e.Params))
	}
	for _, e := range b.eventsNamed("Page.javascriptDialogOpening") {
		out = append(out, "dialog: "+string(e.Params))
	}
	return out
}

// requestedURLs lists every URL the page asked the network stack for.
func (b *browser) requestedURLs() []string {
	var out []string
	for _, e := range b.eventsNamed("Network.requestWillBeSent") {
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(e.Params, &p) == nil {
			out = append(out, p.Request.URL)
		}
	}
	return out
}

// addScript runs js in every document the page opens from now on, before
// the document's own scripts.
func (b *browser) addScript(t *testing.T, js string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.call(ctx, b.session, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": js}); err != nil {
		t.Fatal(err)
	}
}
