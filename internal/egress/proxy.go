package egress

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Upstream is an API the proxy serves as a reverse proxy on its own port,
// adding the credential the agent does not have.
type Upstream struct {
	Name string `json:"name"` // for the log, e.g. "anthropic"
	// URL is the real API's base URL (https://api.anthropic.com, or a mock);
	// its scheme and host are the target, the request path is kept.
	URL string `json:"url"`
	// Header and Value are the credential added to every request, e.g.
	// "x-api-key" and the key, or "Authorization" and "Bearer <token>".
	Header string `json:"header"`
	Value  string `json:"value"`
	// QueryParam, when set, is a query parameter that carries the key
	// (Gemini's ?key=): replaced by Value when the agent sent one.
	QueryParam string `json:"query_param,omitempty"`
}

// Config is what the proxy process needs. It travels as JSON in the
// environment of the proxy's exec (ConfigEnv), never in the container's
// configuration, because Upstream values are secrets.
type Config struct {
	Allow     []string   `json:"allow"`
	Upstreams []Upstream `json:"upstreams"`
}

// Ports the proxy listens on inside its container: the forward proxy, then
// one port per Upstream in order.
const (
	ForwardPort  = 3128
	UpstreamPort = 3129 // Upstreams[i] listens on UpstreamPort+i
)

// credentialHeaders are removed from every request the reverse proxy
// forwards, whatever the agent put there, before the real credential is set.
var credentialHeaders = []string{"X-Api-Key", "Authorization", "X-Goog-Api-Key", "Api-Key", "Proxy-Authorization"}

// Event is one line of the proxy's log (JSON on its standard output).
type Event struct {
	Event  string `json:"event"`            // ready, allow, deny, api, error
	Host   string `json:"host,omitempty"`   // host:port asked for
	Reason string `json:"reason,omitempty"` // why it was denied, or the error
	Name   string `json:"name,omitempty"`   // the upstream, for api events
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	Status int    `json:"status,omitempty"`
}

// Server is a running proxy.
type Server struct {
	policy Policy
	cfg    Config
	log    func(Event)
	dialer *net.Dialer
	client *http.Client
	// upstream reaches the configured APIs: their addresses are the
	// operator's choice (a mock on the host, a gateway), not the agent's, so
	// the address check does not apply; the agent picks only the path.
	upstream http.RoundTripper
}

// NewServer builds the proxy's handlers; log receives every decision.
func NewServer(cfg Config, log func(Event)) (*Server, error) {
	allow, err := ParseHosts(cfg.Allow...)
	if err != nil {
		return nil, err
	}
	for _, u := range cfg.Upstreams {
		if _, err := upstreamTarget(u.URL); err != nil {
			return nil, err
		}
	}
	s := &Server{policy: NewPolicy(allow), cfg: cfg, log: log}
	s.dialer = &net.Dialer{Timeout: 15 * time.Second, Control: s.control}
	tr := &http.Transport{
		Proxy:                 nil, // the proxy goes out directly
		DialContext:           s.dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 10 * time.Minute,
	}
	s.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	up := tr.Clone()
	up.DialContext = (&net.Dialer{Timeout: 15 * time.Second}).DialContext
	s.upstream = up
	return s, nil
}

// control refuses to connect to an address the policy does not allow
// (metadata, loopback), whatever name resolved to it.
func (s *Server) control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if !s.policy.AllowsAddr(a) {
		return &deniedAddrError{addr: a.String()}
	}
	return nil
}

type deniedAddrError struct{ addr string }

func (e *deniedAddrError) Error() string {
	return "address " + e.addr + " is link-local, loopback or unspecified and not listed"
}

// Forward is the forward proxy's handler.
func (s *Server) Forward() http.Handler { return http.HandlerFunc(s.forward) }

func (s *Server) forward(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "readme2demo egress proxy: send requests through me as a proxy (HTTPS_PROXY / HTTP_PROXY)", http.StatusBadRequest)
		return
	}
	if r.URL.Scheme != "http" {
		http.Error(w, "readme2demo egress proxy: only http:// is forwarded as plain requests; https goes through CONNECT", http.StatusBadRequest)
		return
	}
	host, port := r.URL.Hostname(), cmp.Or(r.URL.Port(), "80")
	if !s.allowed(w, host, port) {
		return
	}
	fullDuplex(w)
	out := r.Clone(r.Context())
	out.RequestURI = ""
	removeHopHeaders(out.Header)
	resp, err := s.client.Do(out)
	if err != nil {
		s.badGateway(w, net.JoinHostPort(host, port), err)
		return
	}
	defer resp.Body.Close()
	removeHopHeaders(resp.Header)
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(flushWriter{w}, resp.Body)
}

func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "443"
	}
	if !s.allowed(w, host, port) {
		return
	}
	target := net.JoinHostPort(host, port)
	up, err := s.dialer.DialContext(r.Context(), "tcp", target)
	if err != nil {
		s.badGateway(w, target, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "readme2demo egress proxy: CONNECT needs HTTP/1.1", http.StatusHTTPVersionNotSupported)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			_, _ = up.Write(b)
		}
		_, _ = io.Copy(up, conn)
		closeWrite(up)
	}()
	go func() {
		defer wg.Done()
		_, _ = io.Copy(conn, up)
		closeWrite(conn)
	}()
	wg.Wait()
	up.Close()
	conn.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// allowed checks the policy and answers 403 when it says no.
func (s *Server) allowed(w http.ResponseWriter, host, port string) bool {
	target := net.JoinHostPort(host, port)
	ok, why := s.policy.Allows(host, port)
	if !ok {
		s.log(Event{Event: "deny", Host: target, Reason: why})
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Readme2demo-Egress", "denied")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "readme2demo egress proxy: %s refused: %s (network: allowlist).\n"+
			"To allow it, list it with --allow-host (CLI) or the allow-hosts input (Action), e.g. %s or *.%s.\n",
			target, why, host, host)
		return false
	}
	s.log(Event{Event: "allow", Host: target})
	return true
}

func (s *Server) badGateway(w http.ResponseWriter, target string, err error) {
	var denied *deniedAddrError
	status := http.StatusBadGateway
	if errors.As(err, &denied) {
		status = http.StatusForbidden
		s.log(Event{Event: "deny", Host: target, Reason: denied.Error()})
		w.Header().Set("X-Readme2demo-Egress", "denied")
	} else {
		s.log(Event{Event: "error", Host: target, Reason: err.Error()})
	}
	http.Error(w, fmt.Sprintf("readme2demo egress proxy: %s: %v", target, err), status)
}

// upstreamTarget is an Upstream URL's scheme and host.
func upstreamTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("parse upstream url: %q is not an http(s) URL", raw)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}, nil
}

// Reverse is the reverse proxy's handler for one Upstream: the request
// path is kept, the credential replaced, responses streamed (SSE).
func (s *Server) Reverse(up Upstream) http.Handler {
	target, err := upstreamTarget(up.URL)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "readme2demo egress proxy: bad upstream", http.StatusInternalServerError)
		})
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = target.Scheme, target.Host
			pr.Out.Host = ""
			for _, h := range credentialHeaders {
				pr.Out.Header.Del(h)
			}
			pr.Out.Header.Set(up.Header, up.Value)
			if up.QueryParam != "" {
				q := pr.Out.URL.Query()
				if q.Has(up.QueryParam) {
					q.Set(up.QueryParam, up.Value)
					pr.Out.URL.RawQuery = q.Encode()
				}
			}
		},
		Transport:     s.upstream,
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			s.log(Event{Event: "api", Name: up.Name, Method: resp.Request.Method, Path: resp.Request.URL.Path, Status: resp.StatusCode})
			return nil
		},
		// A failure after the response began (the upstream closing a
		// stream) reaches only ErrorLog; it becomes an error event too.
		ErrorLog: log.New(eventWriter{func(msg string) {
			s.log(Event{Event: "error", Name: up.Name, Host: target.Host, Reason: msg})
		}}, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // not the agent giving up on its own request
				s.log(Event{Event: "error", Name: up.Name, Host: target.Host, Reason: err.Error()})
			}
			http.Error(w, "readme2demo egress proxy: upstream "+up.Name+": "+err.Error(), http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fullDuplex(w)
		rp.ServeHTTP(w, r)
	})
}

// fullDuplex lets an HTTP/1 handler write the answer while the request
// body is still being read. Without it the server, once the answer
// begins, reads what is left of a small body to discard it and closes it
// under the transport still sending it upstream: the upstream connection
// breaks and the agent's answer is cut off. (HTTP/2 is full duplex
// already; the error there is ignored.)
func fullDuplex(w http.ResponseWriter) {
	_ = http.NewResponseController(w).EnableFullDuplex()
}

// eventWriter turns each line a log.Logger writes into a call of emit.
type eventWriter struct{ emit func(string) }

func (e eventWriter) Write(p []byte) (int, error) {
	e.emit(strings.TrimSpace(string(p)))
	return len(p), nil
}

// hopHeaders are connection-level headers a proxy must not forward.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, k := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(k))
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}

// Serve listens on the forward port and one port per Upstream (on host,
// "" meaning every address), logs "ready" once all listen, and serves until
// ctx ends.
func (s *Server) Serve(ctx context.Context, host string) error {
	type srv struct {
		ln net.Listener
		h  http.Handler
	}
	var srvs []srv
	listen := func(port int, h http.Handler) error {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("listen egress proxy: %w", err)
		}
		srvs = append(srvs, srv{ln, h})
		return nil
	}
	if err := listen(ForwardPort, s.Forward()); err != nil {
		return err
	}
	for i, up := range s.cfg.Upstreams {
		if err := listen(UpstreamPort+i, s.Reverse(up)); err != nil {
			for _, x := range srvs {
				x.ln.Close()
			}
			return err
		}
	}
	errc := make(chan error, len(srvs))
	var hs []*http.Server
	for _, x := range srvs {
		hs = append(hs, &http.Server{Handler: x.h, ReadHeaderTimeout: 30 * time.Second})
		go func(h *http.Server, ln net.Listener) { errc <- h.Serve(ln) }(hs[len(hs)-1], x.ln)
	}
	s.log(Event{Event: "ready"})
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve egress proxy: %w", err)
		}
	}
	for _, h := range hs {
		h.Close()
	}
	return nil
}

// jsonLog returns a log func writing one JSON Event per line to w.
func jsonLog(w io.Writer) func(Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
}
