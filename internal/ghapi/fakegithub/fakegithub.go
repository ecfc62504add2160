// Package fakegithub is an in-memory stand-in for the part of the GitHub
// REST API that readme2demo uses (issue comments; git data and pull
// requests, git.go; pull request files, file contents and reviews,
// reviews.go), served by httptest under
// a base path, so tests drive the real go-github client end to end. It
// paginates with Link headers like GitHub, checks the token, records every
// request, and can be told to fail requests (403, 5xx, rate limits).
package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Comment is a stored issue comment.
type Comment struct {
	ID      int64     `json:"id"`
	Body    string    `json:"body"`
	HTMLURL string    `json:"html_url"`
	User    User      `json:"user"`
	Created time.Time `json:"created_at"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
}

// Failure is an injected answer.
type Failure struct {
	Status int
	Header map[string]string
	Body   string
}

// Server is the fake API.
type Server struct {
	// URL is the API base to give clients: the server URL plus the base path.
	URL string
	// Token, when set, must arrive as "Bearer <Token>"; otherwise 401.
	Token string
	// PerPage is the largest page served (GitHub's is 100); tests make it
	// small to exercise pagination.
	PerPage int
	// Fail, when set, is asked first for every request; a non-nil answer is
	// served instead of the real one.
	Fail func(r *http.Request, n int) *Failure

	srv      *httptest.Server
	mu       sync.Mutex
	comments map[string][]*Comment // "owner/repo#n" → comments, oldest first
	nextID   int64
	requests []string
	repos    map[string]*repoData // git.go
}

// New starts a fake API under basePath (e.g. "/api/v3/"). Close it when done.
func New(basePath string) *Server {
	if !strings.HasPrefix(basePath, "/") {
		basePath = "/" + basePath
	}
	if !strings.HasSuffix(basePath, "/") {
		basePath += "/"
	}
	s := &Server{PerPage: 100, comments: map[string][]*Comment{}, nextID: 1000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+basePath+"repos/{owner}/{repo}/issues/{number}/comments", s.list)
	mux.HandleFunc("POST "+basePath+"repos/{owner}/{repo}/issues/{number}/comments", s.create)
	mux.HandleFunc("PATCH "+basePath+"repos/{owner}/{repo}/issues/comments/{id}", s.edit)
	s.routeGit(mux, basePath)
	s.routeReviews(mux, basePath)
	s.srv = httptest.NewServer(s.wrap(mux))
	s.URL = s.srv.URL + basePath
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Seed adds a comment as if someone had posted it earlier.
func (s *Server) Seed(owner, repo string, number int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(fmt.Sprintf("%s/%s#%d", owner, repo, number), login, body).ID
}

// Comments returns a copy of the comments on an issue, oldest first.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments[fmt.Sprintf("%s/%s#%d", owner, repo, number)] {
		out = append(out, *c)
	}
	return out
}

// Requests returns "METHOD path?query" for every request received.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Count returns how many requests had the given method.
func (s *Server) Count(method string) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r, method+" ") {
			n++
		}
	}
	return n
}

func (s *Server) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		n := len(s.requests)
		s.mu.Unlock()
		if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		if s.Fail != nil {
			if f := s.Fail(r, n); f != nil {
				for k, v := range f.Header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(f.Status)
				fmt.Fprint(w, f.Body)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func key(r *http.Request) string {
	return fmt.Sprintf("%s/%s#%s", r.PathValue("owner"), r.PathValue("repo"), r.PathValue("number"))
}

func (s *Server) add(k, login, body string) *Comment {
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, User: User{Login: login}, Created: time.Unix(1700000000+s.nextID, 0).UTC()}
	owner, rest, _ := strings.Cut(k, "/")
	repo, num, _ := strings.Cut(rest, "#")
	c.HTMLURL = fmt.Sprintf("https://github.example/%s/%s/pull/%s#issuecomment-%d", owner, repo, num, c.ID)
	s.comments[k] = append(s.comments[k], c)
	return c
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var all []Comment
	for _, c := range s.comments[key(r)] {
		all = append(all, *c)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, paginate(w, r, s.PerPage, all))
}

// paginate returns the page of all that r asks for (page, per_page: 30 by default, at most
// perPage), never nil, and sets GitHub's Link header (next, last) when more pages follow.
func paginate[T any](w http.ResponseWriter, r *http.Request, perPage int, all []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > perPage {
		per = min(30, perPage)
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	out := []T{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		out = append(out, all[i])
	}
	if last := (len(all) + per - 1) / per; page < last {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next", <http://%s%s>; rel="last"`, r.Host, u.RequestURI(), r.Host, strings.Replace(u.RequestURI(), "page="+strconv.Itoa(page+1), "page="+strconv.Itoa(last), 1)))
	}
	return out
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c := *s.add(key(r), "github-actions[bot]", body)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.comments {
		for _, c := range list {
			if c.ID == id {
				c.Body = body
				writeJSON(w, http.StatusOK, *c)
				return
			}
		}
	}
	notFound(w)
}

// commentBody reads a comment's body from r, or answers 422 as GitHub does to an empty or too
// long one.
func commentBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		unprocessable(w, "Validation Failed")
		return "", false
	}
	return in.Body, !bodyTooLong(w, &in.Body)
}

// bodyTooLong answers 422 when body is longer than GitHub allows.
func bodyTooLong(w http.ResponseWriter, body *string) bool {
	if body == nil || len([]rune(*body)) <= 65536 {
		return false
	}
	unprocessable(w, "Body is too long (maximum is 65536 characters)")
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
