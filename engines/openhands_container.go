package engines

// How OpenHands transcripts are packaged: the container shapes around the
// events (a bare event, an [action, observation] pair, {"events"} and
// {"trajectory"} wrappers, evaluation/resolver lines with a "history").
// The text between JSON values (the CLI's `--JSON Event--` blocks, banners,
// spinner lines) is skipped by the decoder (openHandsOptions).

import (
	"sort"
	"strconv"
	"time"

	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// topLevel handles one decoded value of the stream: an event, a pair, a
// wrapper or an evaluation line.
func (p *openHandsParser) topLevel(v *jsonv.Value) {
	switch {
	case v.Kind == jsonv.Array: // an [action, observation] pair on its own line, or a list of pages
		for _, e := range v.Items() {
			if isEventPage(e) {
				p.page(e)
				continue
			}
			p.b.record()
			p.event(p.main, e)
		}
	case isEventPage(v):
		p.page(v)
	case isOpenHandsEvent(v):
		p.b.record()
		p.event(p.main, v)
	case isHistoryLine(v):
		p.history(v)
	case wrappedEventList(v) != nil:
		for _, e := range wrappedEventList(v).Items() {
			p.element(p.main, e)
		}
	default:
		p.b.record()
		p.b.unknownEvent()
	}
}

func isOpenHandsEvent(v *jsonv.Value) bool {
	return v.Kind == jsonv.Object && (v.Has("action") || v.Has("observation") || v.Get("kind").IsString())
}

// wrappedEventList returns the event list of an {"events"} or {"trajectory"}
// wrapper, or nil.
func wrappedEventList(v *jsonv.Value) *jsonv.Value {
	for _, k := range []string{"events", "trajectory"} {
		if l := v.Get(k); l != nil && l.Kind == jsonv.Array {
			return l
		}
	}
	return nil
}

// element handles one element of an event list: an event, or an [action,
// observation] pair.
func (p *openHandsParser) element(t *trajectory, e *jsonv.Value) {
	events := []*jsonv.Value{e}
	if e.Kind == jsonv.Array {
		events = e.Items()
	}
	for _, x := range events {
		p.b.record()
		p.event(t, x)
	}
}

// history handles an evaluation or resolver output line.
func (p *openHandsParser) history(v *jsonv.Value) {
	p.histories++
	t := newTrajectory(instanceID(v, p.histories) + "/")
	p.trajs = append(p.trajs, t)
	p.readHistory(t, v)
}

// isHistoryLine reports whether v is an evaluation or resolver output line.
func isHistoryLine(v *jsonv.Value) bool {
	h := v.Get("history")
	return v.Kind == jsonv.Object && h != nil && h.Kind == jsonv.Array
}

// instanceID names the n-th evaluation line: its instance_id, else
// "history-n".
func instanceID(v *jsonv.Value, n int) string {
	id := idText(v.Get("instance_id"))
	if id == "" {
		id = "history-" + strconv.Itoa(n)
	}
	return id
}

// readHistory reads an evaluation line into t: its cost and error, and the
// events of its history.
func (p *openHandsParser) readHistory(t *trajectory, v *jsonv.Value) {
	if f, ok := v.Path("metrics", "accumulated_cost").Float(); ok {
		t.evalCost = float64Ptr(f)
	}
	if e := v.Get("error").Str(); e != "" {
		t.evalError = e
	}
	for _, e := range v.Get("history").Items() {
		p.element(t, e)
	}
}

// isEventPage reports whether v is a page of the V1 event search API
// (GET /api/v1/conversation/{id}/events/search, the agent server's
// /events/search): {"items": [...], "next_page_id": …}.
func isEventPage(v *jsonv.Value) bool {
	items := v.Get("items")
	if v.Kind != jsonv.Object || items == nil || items.Kind != jsonv.Array {
		return false
	}
	if v.Has("next_page_id") {
		return true
	}
	for _, e := range items.Items() {
		if !isOpenHandsEvent(e) {
			return false
		}
	}
	return true
}

// page keeps a page's events; flushPages reads them once every page is in.
func (p *openHandsParser) page(v *jsonv.Value) {
	for _, e := range v.Get("items").Items() {
		p.pages = append(p.pages, e.Clone()) // kept to the end: a copy outlives its record
	}
}

// flushPages reads the events of every page, ordered by timestamp: pages
// come newest first when asked with sort_order TIMESTAMP_DESC, and the files
// of a directory of pages in whatever order their names give. Events
// without a readable timestamp keep the order they came in.
func (p *openHandsParser) flushPages() {
	events := p.pages
	p.pages = nil
	type timed struct {
		t time.Time
		e *jsonv.Value
	}
	byTime := make([]timed, len(events))
	for i, e := range events {
		ts, ok := parseEventTime(e.Get("timestamp").Str())
		if !ok {
			byTime = nil
			break
		}
		byTime[i] = timed{ts, e}
	}
	sort.SliceStable(byTime, func(a, b int) bool { return byTime[a].t.Before(byTime[b].t) })
	for i, x := range byTime {
		events[i] = x.e
	}
	for _, e := range events {
		p.element(p.main, e)
	}
}
