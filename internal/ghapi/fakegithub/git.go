package fakegithub

// The git data and pull request parts of the fake: blobs, trees, commits and
// refs per repository (content-addressed like git's, flat trees keyed by
// path), and pull requests. Enough for ghapi's push-and-open flow (UpsertPR).

import (
	"cmp"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Commit is a stored commit.
type Commit struct {
	SHA     string
	Message string
	Tree    string // the tree's sha
	Parents []string
}

// PullRequest is a stored pull request.
type PullRequest struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	State  string `json:"state"`
	Head   string `json:"-"` // the head branch
	Base   string `json:"-"`
	URL    string `json:"html_url"`
}

// repoData is one repository's git objects, refs and pull requests.
type repoData struct {
	blobs   map[string][]byte
	trees   map[string]map[string]string // sha → path → blob sha
	commits map[string]*Commit
	refs    map[string]string // "refs/heads/x" → commit sha
	pulls   []*PullRequest
	review  *reviewData // reviews.go
}

func (s *Server) repo(owner, name string) *repoData {
	if s.repos == nil {
		s.repos = map[string]*repoData{}
	}
	k := owner + "/" + name
	r := s.repos[k]
	if r == nil {
		r = &repoData{blobs: map[string][]byte{}, trees: map[string]map[string]string{},
			commits: map[string]*Commit{}, refs: map[string]string{}}
		s.repos[k] = r
	}
	return r
}

func hash(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (r *repoData) putTree(files map[string]string) string {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{"tree"}
	for _, k := range keys {
		parts = append(parts, k, files[k])
	}
	sha := hash(parts...)
	r.trees[sha] = files
	return sha
}

func (r *repoData) putCommit(message, tree string, parents []string) *Commit {
	c := &Commit{SHA: hash(append([]string{"commit", message, tree}, parents...)...), Message: message, Tree: tree, Parents: parents}
	r.commits[c.SHA] = c
	return c
}

// SeedBranch makes branch of owner/repo point at a new commit holding files
// (path → content) and returns the commit's sha.
func (s *Server) SeedBranch(owner, repo, branch string, files map[string]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo)
	tree := map[string]string{}
	for p, content := range files {
		sha := hash("blob", content)
		r.blobs[sha] = []byte(content)
		tree[p] = sha
	}
	c := r.putCommit("seed "+branch, r.putTree(tree), nil)
	r.refs["refs/heads/"+branch] = c.SHA
	return c.SHA
}

// Branch returns the commit branch points at, or nil.
func (s *Server) Branch(owner, repo, branch string) *Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo)
	c := r.commits[r.refs["refs/heads/"+branch]]
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

// Files returns the files of a commit (path → content).
func (s *Server) Files(owner, repo, commit string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo)
	c := r.commits[commit]
	if c == nil {
		return nil
	}
	out := map[string]string{}
	for p, b := range r.trees[c.Tree] {
		out[p] = string(r.blobs[b])
	}
	return out
}

// Pulls returns a copy of the repository's pull requests, oldest first.
func (s *Server) Pulls(owner, repo string) []PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PullRequest
	for _, p := range s.repo(owner, repo).pulls {
		out = append(out, *p)
	}
	return out
}

// SeedPull adds a pull request as if someone had opened it earlier.
func (s *Server) SeedPull(owner, repo, head, base, title, body, state string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addPull(owner, repo, head, base, title, body, state).Number
}

func (s *Server) addPull(owner, repo, head, base, title, body, state string) *PullRequest {
	r := s.repo(owner, repo)
	s.nextID++
	n := int(s.nextID % 10000)
	p := &PullRequest{Number: n, Title: title, Body: body, State: state, Head: head, Base: base,
		URL: fmt.Sprintf("https://github.example/%s/%s/pull/%d", owner, repo, n)}
	r.pulls = append(r.pulls, p)
	return p
}

func (s *Server) routeGit(mux *http.ServeMux, base string) {
	p := base + "repos/{owner}/{repo}/"
	mux.HandleFunc("GET "+p+"git/ref/{ref...}", s.getRef)
	mux.HandleFunc("POST "+p+"git/refs", s.createRef)
	mux.HandleFunc("PATCH "+p+"git/refs/{ref...}", s.updateRef)
	mux.HandleFunc("GET "+p+"git/commits/{sha}", s.getCommit)
	mux.HandleFunc("POST "+p+"git/commits", s.createCommit)
	mux.HandleFunc("POST "+p+"git/blobs", s.createBlob)
	mux.HandleFunc("POST "+p+"git/trees", s.createTree)
	mux.HandleFunc("GET "+p+"pulls", s.listPulls)
	mux.HandleFunc("POST "+p+"pulls", s.createPull)
	mux.HandleFunc("PATCH "+p+"pulls/{number}", s.editPull)
}

func (s *Server) repoOf(r *http.Request) *repoData {
	return s.repo(r.PathValue("owner"), r.PathValue("repo"))
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": msg})
}

func refJSON(ref, sha string) map[string]any {
	return map[string]any{"ref": ref, "object": map[string]any{"type": "commit", "sha": sha}}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref := "refs/" + r.PathValue("ref")
	sha, ok := s.repoOf(r).refs[ref]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, refJSON(ref, sha))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request) {
	var in struct{ Ref, SHA string }
	if json.NewDecoder(r.Body).Decode(&in) != nil || !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2 {
		unprocessable(w, "ref must start with refs/ and have at least two slashes")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	if _, ok := rd.refs[in.Ref]; ok {
		unprocessable(w, "Reference already exists")
		return
	}
	if rd.commits[in.SHA] == nil {
		unprocessable(w, "Object does not exist")
		return
	}
	rd.refs[in.Ref] = in.SHA
	writeJSON(w, http.StatusCreated, refJSON(in.Ref, in.SHA))
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SHA   string
		Force bool
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		unprocessable(w, "Invalid request")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	ref := "refs/" + r.PathValue("ref")
	old, ok := rd.refs[ref]
	switch {
	case !ok:
		unprocessable(w, "Reference does not exist")
		return
	case rd.commits[in.SHA] == nil:
		unprocessable(w, "Object does not exist")
		return
	case !in.Force && !rd.descends(in.SHA, old):
		unprocessable(w, "Update is not a fast forward")
		return
	}
	rd.refs[ref] = in.SHA
	writeJSON(w, http.StatusOK, refJSON(ref, in.SHA))
}

// descends reports whether commit has ancestor among its ancestry.
func (rd *repoData) descends(commit, ancestor string) bool {
	for queue := []string{commit}; len(queue) > 0; queue = queue[1:] {
		if queue[0] == ancestor {
			return true
		}
		if c := rd.commits[queue[0]]; c != nil {
			queue = append(queue, c.Parents...)
		}
	}
	return false
}

func commitJSON(c *Commit) map[string]any {
	parents := []map[string]any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p})
	}
	return map[string]any{"sha": c.SHA, "message": c.Message, "tree": map[string]any{"sha": c.Tree}, "parents": parents}
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.repoOf(r).commits[r.PathValue("sha")]
	if c == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, commitJSON(c))
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string
		Tree    string
		Parents []string
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Message == "" {
		unprocessable(w, "message and tree are required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	if _, ok := rd.trees[in.Tree]; !ok {
		unprocessable(w, "Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if rd.commits[p] == nil {
			unprocessable(w, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	writeJSON(w, http.StatusCreated, commitJSON(rd.putCommit(in.Message, in.Tree, in.Parents)))
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request) {
	var in struct{ Content, Encoding string }
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		unprocessable(w, "Invalid request")
		return
	}
	content := []byte(in.Content)
	if in.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			unprocessable(w, "content is not valid Base64")
			return
		}
		content = b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sha := hash("blob", string(content))
	s.repoOf(r).blobs[sha] = content
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha})
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path, Mode, Type string
			SHA              *string
		}
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		unprocessable(w, "Invalid request")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	files := map[string]string{}
	if in.BaseTree != "" {
		base, ok := rd.trees[in.BaseTree]
		if !ok {
			unprocessable(w, "base_tree is not a valid tree")
			return
		}
		for p, b := range base {
			files[p] = b
		}
	}
	for _, e := range in.Tree {
		if e.Type != "blob" || (e.Mode != "100644" && e.Mode != "100755") || e.Path == "" || strings.HasPrefix(e.Path, "/") {
			unprocessable(w, "tree entry is not a file blob: "+e.Path)
			return
		}
		if e.SHA == nil { // a deletion
			delete(files, e.Path)
			continue
		}
		if _, ok := rd.blobs[*e.SHA]; !ok {
			unprocessable(w, "tree.sha "+*e.SHA+" is not a valid blob")
			return
		}
		files[e.Path] = *e.SHA
	}
	writeJSON(w, http.StatusCreated, map[string]any{"sha": rd.putTree(files)})
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	state := cmp.Or(r.URL.Query().Get("state"), "open")
	s.mu.Lock()
	var all []PullRequest
	for _, p := range s.repoOf(r).pulls {
		if state == "all" || p.State == state {
			all = append(all, *p)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, paginate(w, r, s.PerPage, all))
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Body, Head, Base string }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" || in.Head == "" || in.Base == "" {
		unprocessable(w, "Validation Failed")
		return
	}
	if bodyTooLong(w, &in.Body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	for _, ref := range []string{in.Head, in.Base} {
		if _, ok := rd.refs["refs/heads/"+ref]; !ok {
			unprocessable(w, "Validation Failed: no branch "+ref)
			return
		}
	}
	for _, p := range rd.pulls {
		if p.State == "open" && p.Head == in.Head && p.Base == in.Base {
			unprocessable(w, "A pull request already exists for "+in.Head)
			return
		}
	}
	writeJSON(w, http.StatusCreated, *s.addPull(r.PathValue("owner"), r.PathValue("repo"), in.Head, in.Base, in.Title, in.Body, "open"))
}

func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var in struct {
		Title, Body *string
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		unprocessable(w, "Invalid request")
		return
	}
	if bodyTooLong(w, in.Body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.repoOf(r).pulls {
		if p.Number == n {
			if in.Title != nil {
				p.Title = *in.Title
			}
			if in.Body != nil {
				p.Body = *in.Body
			}
			writeJSON(w, http.StatusOK, *p)
			return
		}
	}
	notFound(w)
}
