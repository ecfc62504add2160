package fakegithub

// The pull request review part of the fake: a pull request's files (with
// their patches, which decide the lines a review may comment on), file
// contents at a commit, and reviews with their comments.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// PullFile is one file of a pull request's diff.
type PullFile struct {
	Filename string `json:"filename"`
	Status   string `json:"status"` // added, modified, removed, renamed
	Patch    string `json:"patch"`  // GitHub's patch: the hunks, no file header
}

// Review is a stored pull request review.
type Review struct {
	ID       int64  `json:"id"`
	Body     string `json:"body"`
	State    string `json:"state"`
	CommitID string `json:"commit_id"`
	HTMLURL  string `json:"html_url"`
	User     User   `json:"user"`
	number   int
}

// ReviewComment is a stored review comment.
type ReviewComment struct {
	ID        int64  `json:"id"`
	ReviewID  int64  `json:"pull_request_review_id"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	StartLine int    `json:"start_line,omitempty"`
	Side      string `json:"side"`
	Body      string `json:"body"`
	HTMLURL   string `json:"html_url"`
	number    int
}

// reviewData is the review state of one repository.
type reviewData struct {
	files    map[int][]PullFile
	reviews  []*Review
	comments []*ReviewComment
}

func (s *Server) reviewsOf(owner, repo string) *reviewData {
	r := s.repo(owner, repo)
	if r.review == nil {
		r.review = &reviewData{files: map[int][]PullFile{}}
	}
	return r.review
}

// SeedPullFiles sets the files (and so the diff) of pull request number.
func (s *Server) SeedPullFiles(owner, repo string, number int, files []PullFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reviewsOf(owner, repo).files[number] = files
}

// Reviews returns a copy of the reviews of a pull request, oldest first.
func (s *Server) Reviews(owner, repo string, number int) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Review
	for _, r := range s.reviewsOf(owner, repo).reviews {
		if r.number == number {
			out = append(out, *r)
		}
	}
	return out
}

// ReviewComments returns a copy of the live review comments of a pull request.
func (s *Server) ReviewComments(owner, repo string, number int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewComment
	for _, c := range s.reviewsOf(owner, repo).comments {
		if c.number == number {
			out = append(out, *c)
		}
	}
	return out
}

func (s *Server) routeReviews(mux *http.ServeMux, base string) {
	p := base + "repos/{owner}/{repo}/"
	mux.HandleFunc("GET "+p+"pulls/{number}/files", s.listPullFiles)
	mux.HandleFunc("GET "+p+"contents/{path...}", s.getContents)
	mux.HandleFunc("GET "+p+"pulls/{number}/reviews", s.listReviews)
	mux.HandleFunc("POST "+p+"pulls/{number}/reviews", s.createReview)
	mux.HandleFunc("PUT "+p+"pulls/{number}/reviews/{id}", s.updateReview)
	mux.HandleFunc("GET "+p+"pulls/{number}/reviews/{id}/comments", s.listReviewComments)
	mux.HandleFunc("DELETE "+p+"pulls/comments/{id}", s.deleteReviewComment)
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	files := append([]PullFile(nil), s.reviewsOf(r.PathValue("owner"), r.PathValue("repo")).files[n]...)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, paginate(w, r, s.PerPage, files))
}

// getContents serves a file at ?ref= (a commit sha or a branch).
func (s *Server) getContents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repoOf(r)
	ref := r.URL.Query().Get("ref")
	c := rd.commits[ref]
	if c == nil {
		c = rd.commits[rd.refs["refs/heads/"+ref]]
	}
	if c == nil {
		notFound(w)
		return
	}
	blob, ok := rd.trees[c.Tree][r.PathValue("path")]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"type": "file", "encoding": "base64", "path": r.PathValue("path"),
		"sha": blob, "content": base64.StdEncoding.EncodeToString(rd.blobs[blob])})
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	var all []Review
	for _, rv := range s.reviewsOf(r.PathValue("owner"), r.PathValue("repo")).reviews {
		if rv.number == n {
			all = append(all, *rv)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, paginate(w, r, s.PerPage, all))
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// inDiff reports whether lines start..end of path's new side lie in one
// hunk of the pull request's diff, as GitHub requires of a comment.
func inDiff(files []PullFile, path string, start, end int) bool {
	for _, f := range files {
		if f.Filename != path {
			continue
		}
		for _, m := range hunkHeader.FindAllStringSubmatch(f.Patch, -1) {
			from, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			if start >= from && end <= from+n-1 {
				return true
			}
		}
	}
	return false
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var in struct {
		CommitID string `json:"commit_id"`
		Body     string `json:"body"`
		Event    string `json:"event"`
		Comments []struct {
			Path      string `json:"path"`
			Line      int    `json:"line"`
			StartLine int    `json:"start_line"`
			Side      string `json:"side"`
			StartSide string `json:"start_side"`
			Body      string `json:"body"`
		} `json:"comments"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Event != "COMMENT" || (in.Body == "" && len(in.Comments) == 0) {
		unprocessable(w, "Validation Failed")
		return
	}
	if bodyTooLong(w, &in.Body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	rd := s.reviewsOf(owner, repo)
	for _, c := range in.Comments {
		start := c.Line
		if c.StartLine > 0 {
			start = c.StartLine
		}
		if c.Side != "RIGHT" || c.Line < 1 || start > c.Line || !inDiff(rd.files[n], c.Path, start, c.Line) {
			unprocessable(w, "Unprocessable Entity: Pull request review thread line must be part of the diff")
			return
		}
	}
	s.nextID++
	rv := &Review{ID: s.nextID, Body: in.Body, State: "COMMENTED", CommitID: in.CommitID, User: User{Login: "github-actions[bot]"}, number: n,
		HTMLURL: fmt.Sprintf("https://github.example/%s/%s/pull/%d#pullrequestreview-%d", owner, repo, n, s.nextID)}
	rd.reviews = append(rd.reviews, rv)
	for _, c := range in.Comments {
		s.nextID++
		rd.comments = append(rd.comments, &ReviewComment{ID: s.nextID, ReviewID: rv.ID, Path: c.Path, Line: c.Line, StartLine: c.StartLine,
			Side: c.Side, Body: c.Body, number: n, HTMLURL: fmt.Sprintf("https://github.example/%s/%s/pull/%d#discussion_r%d", owner, repo, n, s.nextID)})
	}
	writeJSON(w, http.StatusOK, *rv)
}

func (s *Server) updateReview(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || strings.TrimSpace(in.Body) == "" {
		unprocessable(w, "Validation Failed")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range s.reviewsOf(r.PathValue("owner"), r.PathValue("repo")).reviews {
		if rv.ID == id {
			rv.Body = in.Body
			writeJSON(w, http.StatusOK, *rv)
			return
		}
	}
	notFound(w)
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	var all []ReviewComment
	for _, c := range s.reviewsOf(r.PathValue("owner"), r.PathValue("repo")).comments {
		if c.ReviewID == id {
			all = append(all, *c)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, paginate(w, r, s.PerPage, all))
}

func (s *Server) deleteReviewComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.reviewsOf(r.PathValue("owner"), r.PathValue("repo"))
	for i, c := range rd.comments {
		if c.ID == id {
			rd.comments = append(rd.comments[:i], rd.comments[i+1:]...)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	notFound(w)
}
