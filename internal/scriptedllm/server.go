package scriptedllm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// DummyAPIKey is the API key to give a CLI driven by a scripted server: the server accepts any
// key, and a capture checks that this one never reaches a transcript.
const DummyAPIKey = "r2d-mock-key-not-a-secret"

// RequestKind says how the server answered a request.
type RequestKind string

const (
	// KindTurn: a main-conversation request answered with the next scripted Turn (or, when
	// Request.Repeat, with the turn its conversation got before).
	KindTurn RequestKind = "turn"
	// KindFinal: a main-conversation request after the turns were exhausted (FinalText).
	KindFinal RequestKind = "final"
	// KindSide: a side request (title, topic detection, quota check...); no turn consumed.
	KindSide RequestKind = "side"
	// KindCountTokens: a token-counting request.
	KindCountTokens RequestKind = "count_tokens"
	// KindOther: a known harmless request (connectivity check, telemetry) answered 200 {}.
	KindOther RequestKind = "other"
	// KindUnknown: a path the mock does not implement (answered 404).
	KindUnknown RequestKind = "unknown"
)

// Request is the record of one HTTP request the mock received.
type Request struct {
	Seq    int    // 0-based arrival order
	Method string // e.g. "POST"
	Path   string // URL path without the query
	Query  string // raw query, e.g. "beta=true"
	Model  string // the requested model, when the body says
	Stream bool   // the client asked for SSE
	Kind   RequestKind
	// Turn is the 0-based index of the scripted turn served (KindTurn), else -1.
	Turn int
	// Repeat: the request carried a conversation the mock had answered already (a CLI retrying
	// a request, e.g. after a timeout on a loaded machine), so it got that answer again, byte
	// for byte, and consumed no turn.
	Repeat bool
	// Tools are the names of the tools the client offered.
	Tools []string
	// ToolResults are the tool results carried by the request's last user message: what the
	// CLI reports back for the previous turn's tool calls.
	ToolResults []ToolResult
	// System is the start of the system prompt (at most 300 bytes), for diagnostics.
	System string
	// Body is the raw request body.
	Body []byte
}

// ConsumedTurn reports whether the request was answered with a scripted turn it was the first
// to get (a repeated request consumes none).
func (r Request) ConsumedTurn() bool { return r.Kind == KindTurn && !r.Repeat }

// ToolResult is one tool result the CLI sent back.
type ToolResult struct {
	ToolUseID string
	Content   string // text blocks joined with "\n"
	IsError   bool
}

// Server is a running mock. It is safe for concurrent requests.
type Server struct {
	sc   Scenario
	ln   net.Listener
	srv  *http.Server
	mux  *http.ServeMux
	done chan error

	mu        sync.Mutex
	mainKey   *string // identifies the main conversation once seen (see claimMain)
	nextTurn  int
	answered  map[string]answer // main-conversation answers by conversation key (see take)
	messages  int
	reqs      []Request
	exhausted chan struct{}
}

// routeRegistrars add each API's routes to a server's mux; every API file registers itself in
// init (anthropic.go, and beside it e.g. openai.go).
var routeRegistrars []func(s *Server, mux *http.ServeMux)

func registerRoutes(f func(s *Server, mux *http.ServeMux)) {
	routeRegistrars = append(routeRegistrars, f)
}

// Start listens on addr (e.g. "127.0.0.1:0", or the Docker bridge gateway address so a
// container can reach it) and serves sc. Close it when done.
func Start(addr string, sc Scenario) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen mock llm: %w", err)
	}
	s := &Server{
		sc:        sc,
		ln:        ln,
		mux:       http.NewServeMux(),
		done:      make(chan error, 1),
		answered:  map[string]answer{},
		exhausted: make(chan struct{}),
	}
	if len(sc.Turns) == 0 {
		close(s.exhausted)
	}
	for _, reg := range routeRegistrars {
		reg(s, s.mux)
	}
	s.mux.HandleFunc("/", s.unknown)
	for _, p := range harmlessPaths {
		s.mux.HandleFunc(p, s.harmless)
	}
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// URL is the base URL, e.g. "http://127.0.0.1:41234" (use it as ANTHROPIC_BASE_URL).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, cutting open streams.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	if serveErr := <-s.done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	if err != nil {
		return fmt.Errorf("close mock llm: %w", err)
	}
	return nil
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// TurnsServed is the number of scripted turns answered so far.
func (s *Server) TurnsServed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextTurn
}

// Exhausted is closed once the last scripted turn has been served.
func (s *Server) Exhausted() <-chan struct{} { return s.exhausted }

// claimMain reports whether a request whose conversation is identified by key belongs to the
// main conversation. The first key claimed becomes the main conversation's.
func (s *Server) claimMain(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mainKey == nil {
		s.mainKey = &key
	}
	return *s.mainKey == key
}

// answer is how a main-conversation request was answered: its kind, turn index and message id.
type answer struct {
	kind  RequestKind
	turn  int
	msgID string
}

// take allocates the answer for a request: a message id in every case and, when main is true,
// the next scripted turn (or FinalText once they are exhausted). It records req (with Kind,
// Turn and Repeat filled in) and returns it.
//
// Turns are keyed by conversation: conv identifies the conversation the request carries (see
// conversationKey). A CLI that retries a request (its first answer was slow, cut or lost) sends
// the same conversation again; it gets the same answer as the first time instead of the next
// turn, which would skip a scripted step. Every genuinely new request carries a longer
// conversation (the previous answer and its tool results), so it gets the next turn.
func (s *Server) take(req Request, main bool, conv string) (Request, Turn, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var turn Turn
	req.Turn = -1
	var id string
	if a, seen := s.answered[conv]; main && seen {
		req.Kind, req.Turn, req.Repeat, id = a.kind, a.turn, true, a.msgID
		turn = s.sc.finalTurn()
		if a.kind == KindTurn {
			turn = s.sc.Turns[a.turn]
		}
	} else {
		if main {
			if s.nextTurn < len(s.sc.Turns) {
				req.Kind, req.Turn, turn = KindTurn, s.nextTurn, s.sc.Turns[s.nextTurn]
				s.nextTurn++
				if s.nextTurn == len(s.sc.Turns) {
					close(s.exhausted)
				}
			} else {
				req.Kind, turn = KindFinal, s.sc.finalTurn()
			}
		}
		id = MessageID(s.messages)
		s.messages++
		if main {
			s.answered[conv] = answer{kind: req.Kind, turn: req.Turn, msgID: id}
		}
	}
	req.Seq = len(s.reqs)
	s.reqs = append(s.reqs, req)
	return req, turn, id
}

// conversationKey identifies the conversation a request carries: a digest of the given JSON
// values (the message list, and whatever else names the conversation) in a canonical form,
// without "cache_control" markers (a client may move those without changing the conversation).
func conversationKey(parts ...json.RawMessage) string {
	h := sha256.New()
	for _, raw := range parts {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			raw, _ = json.Marshal(withoutKey(v, "cache_control"))
		}
		h.Write(raw)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// withoutKey returns v with every object member named key removed, at any depth.
func withoutKey(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for k, e := range x {
			x[k] = withoutKey(e, key)
		}
	case []any:
		for i, e := range x {
			x[i] = withoutKey(e, key)
		}
	}
	return v
}

// record stores a request that needs no message (count_tokens, unknown paths).
func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Turn = -1
	req.Seq = len(s.reqs)
	s.reqs = append(s.reqs, req)
}

// harmlessPaths are non-model endpoints the CLIs call on their base URL: a connectivity check
// (Claude Code 2.1.x: HEAD /api/hello) and telemetry (2.0.x: POST /api/event_logging/batch).
var harmlessPaths = []string{"/api/hello", "/api/event_logging/batch"}

func (s *Server) harmless(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Kind: KindOther, Body: body})
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Kind: KindUnknown, Body: body})
	writeJSON(w, http.StatusNotFound, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "not_found_error", "message": "scriptedllm: no such endpoint " + r.URL.Path},
	})
}

// startSSE answers 200 with an event stream (contentType, no caching; other headers are set
// before) and returns what writes one event, flushed at once: "event: NAME" when event is not
// empty, then "data: " and data as JSON; every line ends with eol, and the event with one more.
func startSSE(w http.ResponseWriter, contentType, eol string) func(event string, data any) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	return func(event string, data any) {
		b, _ := json.Marshal(data)
		if event != "" {
			fmt.Fprintf(w, "event: %s%s", event, eol)
		}
		fmt.Fprintf(w, "data: %s%s%s", b, eol, eol)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
