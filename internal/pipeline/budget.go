package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// errCostCap is the cause of the context that stops an agent whose
// streamed cost crossed Limits.MaxCostUSD.
var errCostCap = errors.New("the cost cap was crossed")

// budget enforces Limits.MaxCostUSD: it stops the agent as soon as the
// growing transcript shows a cost over the cap (engines whose transcript
// streams cost), and fails a finished run whose final cost is over it
// (engines that report cost only at the end). A zero cap does nothing.
type budget struct {
	cap    float64
	cancel context.CancelCauseFunc
	note   func(string, ...any)

	mu      sync.Mutex
	stopped bool
	seen    float64
}

// withBudget returns the context the agent runs under and its budget.
func withBudget(ctx context.Context, capUSD float64, note func(string, ...any)) (context.Context, *budget) {
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, &budget{cap: capUSD, cancel: cancel, note: note}
}

// observe sees each re-parse of the growing transcript.
func (b *budget) observe(l *commandlog.Log) {
	if b.cap <= 0 || l == nil || l.CostUSD == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = *l.CostUSD
	if b.stopped || *l.CostUSD <= b.cap {
		return
	}
	b.stopped = true
	b.note("cost %s crossed the cap %s: stopping the agent", usd(*l.CostUSD), usd(b.cap))
	b.cancel(errCostCap)
}

// settle turns the budget's own cancellation into a finished run: the
// sandbox reports it as cancelled, but nobody interrupted the run.
func (b *budget) settle(parent context.Context, res *sandbox.Result, runErr error) error {
	b.mu.Lock()
	stopped := b.stopped
	b.mu.Unlock()
	if stopped && parent.Err() == nil && res != nil && res.Canceled {
		res.Canceled = false
		return nil
	}
	return runErr
}

// enforce fails the parsed log when its cost is over the cap (or the
// agent was stopped for crossing it) and says so in the outcome reason.
func (b *budget) enforce(l *commandlog.Log) {
	if b.cap <= 0 || l == nil {
		return
	}
	b.mu.Lock()
	stopped, seen := b.stopped, b.seen
	b.mu.Unlock()
	cost := seen
	if l.CostUSD != nil && *l.CostUSD > cost {
		cost = *l.CostUSD
	}
	if !stopped && cost <= b.cap {
		return
	}
	if l.CostUSD == nil || *l.CostUSD < cost {
		l.CostUSD = &cost
	}
	l.Outcome = commandlog.OutcomeFailed
	l.Adjusted = false
	l.OutcomeReason = fmt.Sprintf("cost %s exceeded the cap %s", usd(cost), usd(b.cap))
	if stopped {
		l.OutcomeReason += ": the agent was stopped"
	}
}

// usd formats dollars with two to six decimals: $0.50, $0.0123, $0.000004.
func usd(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	for len(s) > 0 && s[len(s)-1] == '0' && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return "$" + s
}
