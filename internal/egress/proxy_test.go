package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseHosts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "api.anthropic.com, registry.npmjs.org\n*.pythonhosted.org pypi.org", want: []string{"api.anthropic.com", "registry.npmjs.org", "*.pythonhosted.org", "pypi.org"}},
		{in: "https://User:pw@API.example.com:8443/v1/x", want: []string{"api.example.com:8443"}},
		{in: "a.com,a.com,,", want: []string{"a.com"}},
		{in: ".pythonhosted.org", want: []string{"*.pythonhosted.org"}},
		{in: "169.254.169.254", want: []string{"169.254.169.254"}},
		{in: "[::1]:80", want: []string{"[::1]:80"}},
		{in: "*", err: "allows everything"},
		{in: "*.1.2.3.4", err: "wildcard cannot cover an IP"},
		{in: "a.com:99999", err: "port"},
		{in: "bad host!", err: "not a host name"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseHosts(tc.in)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				var he *HostError
				assert.Assert(t, errors.As(err, &he))
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestPolicyAllows(t *testing.T) {
	p := NewPolicy([]string{"api.anthropic.com", "*.npmjs.org", "pypi.org:443", "172.17.0.1"})
	for _, tc := range []struct {
		host, port string
		want       bool
	}{
		{"api.anthropic.com", "443", true},
		{"API.Anthropic.com.", "443", true},
		{"evil-api.anthropic.com", "443", false},
		{"registry.npmjs.org", "443", true},
		{"npmjs.org", "443", false}, // *.suffix covers subdomains only
		{"evilnpmjs.org", "443", false},
		{"pypi.org", "443", true},
		{"pypi.org", "80", false},
		{"172.17.0.1", "8080", true},
		{"169.254.169.254", "80", false},
		{"1.1.1.1", "443", false},
		{"example.com", "443", false},
	} {
		got, why := p.Allows(tc.host, tc.port)
		assert.Check(t, is.Equal(got, tc.want), "%s:%s (%s)", tc.host, tc.port, why)
		if !got {
			assert.Check(t, why != "")
		}
	}
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"169.254.169.254", false}, {"127.0.0.1", false}, {"0.0.0.0", false}, {"::1", false}, {"fe80::1", false},
		{"10.1.2.3", true}, {"172.17.0.1", true}, {"93.184.216.34", true},
	} {
		assert.Check(t, is.Equal(p.AllowsAddr(netip.MustParseAddr(tc.addr)), tc.want), tc.addr)
	}
	listed := NewPolicy([]string{"127.0.0.1"})
	assert.Check(t, listed.AllowsAddr(netip.MustParseAddr("127.0.0.1")), "a listed loopback address is allowed")
}

// events collects a Server's log.
type events struct {
	mu sync.Mutex
	ev []Event
}

func (e *events) add(ev Event) { e.mu.Lock(); e.ev = append(e.ev, ev); e.mu.Unlock() }
func (e *events) all() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.ev...)
}

// startProxy serves a Server on loopback ports and returns the forward
// proxy's URL and each upstream's.
func startProxy(t *testing.T, cfg Config) (*url.URL, []string, *events) {
	t.Helper()
	ev := &events{}
	s, err := NewServer(cfg, ev.add)
	assert.NilError(t, err)
	fwd := httptest.NewServer(s.Forward())
	t.Cleanup(fwd.Close)
	var ups []string
	for _, u := range cfg.Upstreams {
		r := httptest.NewServer(s.Reverse(u))
		t.Cleanup(r.Close)
		ups = append(ups, r.URL)
	}
	pu, _ := url.Parse(fwd.URL)
	return pu, ups, ev
}

func TestForwardProxy(t *testing.T) {
	// The "internet": a plain HTTP server and a TLS server on loopback. The
	// policy lists 127.0.0.1 literally (loopback is refused otherwise).
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello from web") }))
	defer web.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello over tls") }))
	defer tls.Close()

	pu, _, ev := startProxy(t, Config{Allow: []string{"127.0.0.1"}})
	tr := tls.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(pu)
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	for _, u := range []string{web.URL, tls.URL} {
		resp, err := c.Get(u)
		assert.NilError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Check(t, is.Equal(resp.StatusCode, 200), u)
		assert.Check(t, strings.HasPrefix(string(b), "hello"), string(b))
	}

	// Unlisted names and the metadata address get a 403 that says why.
	for _, target := range []string{"example.com:443", "169.254.169.254:80", "[::1]:443"} {
		code, body := rawConnect(t, pu.Host, target)
		assert.Check(t, is.Equal(code, 403), target)
		assert.Check(t, is.Contains(body, "not in the allowlist"), target)
		assert.Check(t, is.Contains(body, "--allow-host"), target)
	}
	resp, err := c.Get("http://169.254.169.254/latest/meta-data/")
	assert.NilError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, 403))
	assert.Check(t, is.Contains(string(b), "169.254.169.254:80 refused"))

	var denied []string
	for _, e := range ev.all() {
		if e.Event == "deny" {
			denied = append(denied, e.Host)
		}
	}
	assert.Check(t, is.DeepEqual(denied, []string{"example.com:443", "169.254.169.254:80", "[::1]:443", "169.254.169.254:80"}))
}

// A listed name that resolves to a refused address (the metadata service,
// loopback) is still refused: the check is on the dialled address.
func TestForwardProxyChecksResolvedAddress(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret metadata") }))
	defer web.Close()
	_, port, _ := net.SplitHostPort(web.Listener.Addr().String())
	pu, _, _ := startProxy(t, Config{Allow: []string{"localhost"}})
	code, body := rawConnect(t, pu.Host, "localhost:"+port)
	assert.Check(t, is.Equal(code, 403))
	assert.Check(t, is.Contains(body, "link-local, loopback"))
}

// rawConnect sends a CONNECT and returns the status and body.
func rawConnect(t *testing.T, proxy, target string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	assert.NilError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	assert.NilError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The reverse proxy drops whatever credential the agent sent, adds the
// real one, keeps the path and query, and streams.
func TestReverseProxyInjectsCredential(t *testing.T) {
	type seen struct{ key, auth, goog, path, query string }
	got := make(chan seen, 4)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), r.Header.Get("X-Goog-Api-Key"), r.URL.Path, r.URL.RawQuery}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: ping\ndata: {}\n\n")
	}))
	defer api.Close()
	const real = "sk-ant-api03-REAL-KEY-only-the-proxy-holds"
	_, ups, ev := startProxy(t, Config{Upstreams: []Upstream{
		{Name: "anthropic", URL: api.URL + "/base", Header: "x-api-key", Value: real},
		{Name: "gemini", URL: api.URL, Header: "x-goog-api-key", Value: real, QueryParam: "key"},
	}})

	req, _ := http.NewRequest(http.MethodPost, ups[0]+"/v1/messages?beta=true", strings.NewReader("{}"))
	req.Header.Set("x-api-key", "placeholder")
	req.Header.Set("Authorization", "Bearer placeholder")
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Check(t, is.Equal(string(b), "event: ping\ndata: {}\n\n"))
	assert.Check(t, <-got == seen{key: real, path: "/v1/messages", query: "beta=true"})

	resp, err = http.Get(ups[1] + "/v1beta/models/m:generateContent?key=placeholder&alt=sse")
	assert.NilError(t, err)
	resp.Body.Close()
	s := <-got
	assert.Check(t, is.Equal(s.goog, real))
	assert.Check(t, is.Equal(s.query, "alt=sse&key="+real))

	var api0 []Event
	for _, e := range ev.all() {
		if e.Event == "api" {
			api0 = append(api0, e)
		}
	}
	assert.Check(t, is.Len(api0, 2))
	assert.Check(t, is.Equal(api0[0].Path, "/v1/messages"))
	assert.Check(t, is.Equal(api0[0].Status, 200))
}

func TestServeListensAndStops(t *testing.T) {
	ev := &events{}
	first := make(chan struct{}, 1)
	s, err := NewServer(Config{Allow: []string{"a.com"}}, func(e Event) {
		ev.add(e)
		select {
		case first <- struct{}{}:
		default:
		}
	})
	assert.NilError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, "127.0.0.1") }()
	select {
	case <-first:
	case err := <-done:
		t.Fatalf("Serve ended before it logged anything: %v", err)
	case <-time.After(5 * time.Second):
	}
	assert.Assert(t, is.Len(ev.all(), 1))
	assert.Check(t, is.Equal(ev.all()[0].Event, "ready"))
	code, _ := rawConnect(t, fmt.Sprintf("127.0.0.1:%d", ForwardPort), "b.com:443")
	assert.Check(t, is.Equal(code, 403))
	cancel()
	assert.NilError(t, <-done)
}

func TestMainRejectsBadConfig(t *testing.T) {
	var out, errb strings.Builder
	code := Main(func(string) string { return "{not json" }, &out, &errb)
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Contains(errb.String(), ConfigEnv))
	code = Main(func(string) string { return `{"allow":["*"]}` }, &out, &errb)
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Contains(errb.String(), "allows everything"))
}

func TestCheckSelfTest(t *testing.T) {
	lines, err := CheckSelfTest([]byte("noise\nreadme2demo-egress-selftest: ok: direct connection to 1.1.1.1:443 blocked\n" +
		"readme2demo-egress-selftest: FAIL: example.com through the proxy answered '200', want 403\n"))
	assert.Check(t, is.Len(lines, 2))
	var st *SelfTestError
	assert.Assert(t, errors.As(err, &st))
	assert.Check(t, is.DeepEqual(st.Failures, []string{"example.com through the proxy answered '200', want 403"}))
	_, err = CheckSelfTest([]byte("readme2demo-egress-selftest: ok: fine\n"))
	assert.NilError(t, err)
}

func TestIsProxy(t *testing.T) {
	for _, tc := range []struct {
		arg0 string
		want bool
	}{
		{"/r2d-egress/" + ProgramName, true},
		{ProgramName, true},
		{"/usr/local/bin/readme2demo", false},
		{"/r2d-egress/" + ProgramName + ".test", false},
		{"", false},
	} {
		assert.Check(t, is.Equal(IsProxy(tc.arg0), tc.want), tc.arg0)
	}
}

// An API may answer while the request body is still coming (a stream that
// begins early, an error sent before the upload ends; or only the last
// read of the body racing the first byte of the answer, as Gemini CLI's
// large requests met it). The proxy must keep sending the body and keep
// streaming the answer: an HTTP/1 server that discards and closes the
// request body once the answer begins broke the upstream connection, and
// the agent saw its answer cut off ("terminated").
func TestProxyAnswersWhileTheBodyIsStillComing(t *testing.T) {
	t.Parallel()           // it waits on purpose: let the others run meanwhile
	const size = 100 << 10 // under the 256 KiB a Go server reads to discard a body: it closes it
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Check(t, http.NewResponseController(w).EnableFullDuplex())
		first := make([]byte, 1024)
		_, err := io.ReadFull(r.Body, first)
		assert.Check(t, err)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: early\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond) // the proxy has the answer's head before the rest of the body
		rest, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "data: got %d bytes (%v)\n\n", int64(len(first))+rest, err)
	}))
	defer api.Close()
	pu, ups, ev := startProxy(t, Config{Allow: []string{"127.0.0.1"}, Upstreams: []Upstream{
		{Name: "gemini", URL: api.URL, Header: "x-goog-api-key", Value: "real"},
	}})
	defer func() {
		for _, e := range ev.all() {
			assert.Check(t, e.Event != "error", "%+v", e)
		}
	}()
	viaForward := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 30 * time.Second}
	want := fmt.Sprintf("data: early\n\ndata: got %d bytes (<nil>)\n\n", size)
	for _, c := range []struct {
		name, url string
		client    *http.Client
	}{
		{"reverse", ups[0] + "/v1beta/models/m:streamGenerateContent", http.DefaultClient},
		{"forward", api.URL + "/v1beta/models/m:streamGenerateContent", viaForward},
	} {
		for i := range 20 {
			resp, err := c.client.Post(c.url, "application/json", bytes.NewReader(make([]byte, size)))
			if !assert.Check(t, err, "%s #%d", c.name, i) {
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Check(t, err, "%s #%d: the answer was cut off after %q", c.name, i, b)
			assert.Check(t, is.Equal(string(b), want), "%s #%d", c.name, i)
		}
	}
}

// An answer the API cuts off after it began is logged as an error event
// naming the upstream (the agent's own error may say only "terminated").
func TestCutAnswerIsAnErrorEvent(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, "data: half")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if assert.Check(t, err) {
			conn.Close()
		}
	}))
	defer api.Close()
	_, ups, ev := startProxy(t, Config{Upstreams: []Upstream{{Name: "anthropic", URL: api.URL, Header: "x-api-key", Value: "real"}}})
	resp, err := http.Post(ups[0]+"/v1/messages", "application/json", strings.NewReader("{}"))
	assert.NilError(t, err)
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Check(t, err != nil, "the agent sees the answer cut off")
	var errs []Event
	for _, e := range ev.all() {
		if e.Event == "error" {
			errs = append(errs, e)
		}
	}
	assert.Assert(t, is.Len(errs, 1))
	assert.Check(t, is.Equal(errs[0].Name, "anthropic"))
	assert.Check(t, is.Contains(errs[0].Reason, "read error during body copy"))
}

// An agent giving up on its own request is not an API failure: no error
// event, where an API that cannot be reached is one.
func TestAgentCancelIsNotAnErrorEvent(t *testing.T) {
	t.Parallel() // it waits on purpose: let the others run meanwhile
	release := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer api.Close()
	defer close(release)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	_, ups, ev := startProxy(t, Config{Upstreams: []Upstream{
		{Name: "stalls", URL: api.URL, Header: "x-api-key", Value: "real"},
		{Name: "gone", URL: gone.URL, Header: "x-api-key", Value: "real"},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ups[0]+"/v1/messages", strings.NewReader("{}"))
	_, err := http.DefaultClient.Do(req)
	assert.Check(t, err != nil)
	resp, err := http.Post(ups[1]+"/v1/messages", "application/json", strings.NewReader("{}"))
	assert.NilError(t, err)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusBadGateway))

	time.Sleep(100 * time.Millisecond) // the proxy's handler of the cancelled request returns
	var failed []string
	for _, e := range ev.all() {
		if e.Event == "error" {
			failed = append(failed, e.Name)
		}
	}
	assert.Check(t, is.DeepEqual(failed, []string{"gone"}))
}
