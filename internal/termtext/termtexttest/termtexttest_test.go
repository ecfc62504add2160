package termtexttest

import (
	"testing"

	"gotest.tools/v3/assert"
)

// The oracle finds every piece raw, and none once termtext made it
// visible; on a page it finds them written as escapes too.
func TestProblemsFindsEveryPiece(t *testing.T) {
	for _, p := range append(append([]Piece{}, Hidden...), Controls...) {
		for _, sf := range []Surface{Text, Terminal, Markdown, HTML} {
			if p.Name == "CSI huge colour" && sf == Terminal {
				continue // a colour sequence to the oracle; termtext drops it (TestSGR)
			}
			assert.Check(t, len(Problems("a"+p.Text+"b", sf)) > 0, "%s on surface %d", p.Name, sf)
		}
	}
	assert.Check(t, len(Problems(`{"x":"\u202e"} &#8238; &#x200B;`, HTML)) == 3)
	assert.Check(t, len(Problems(`"\u001b[31mred\u001b[0m" @`+"\u200b", HTML)) == 1)
	assert.Check(t, len(Problems("@\u200bname \x1b[31mred\x1b[0m\r\n", Markdown)) == 3) // ESC twice, CR
	assert.Check(t, len(Problems("@\u200bname \x1b[31mred\x1b[0m\r\n", Terminal)) == 1) // the ZWSP
	assert.Check(t, len(Problems("\u26a0\ufe0f ok", Text)) == 0)
}
