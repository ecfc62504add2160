package transcriptgen

import (
	"math/rand"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The regular expressions split used to find ids with: split must cut
// every line exactly where they did.
var (
	idStringRe = regexp.MustCompile(`"(id|[A-Za-z_]*_id|[A-Za-z]+Id|[A-Za-z_]*[uU]uid)"( ?: ?)"([^"\\]+)"`)
	idNumberRe = regexp.MustCompile(`"(id|cause)": ?(\d+)`)
)

// splitByRegexp is split as it was written with idStringRe and idNumberRe.
func splitByRegexp(line []byte) []piece {
	type match struct {
		start, end int
		p          piece
	}
	var ms []match
	for _, m := range idStringRe.FindAllSubmatchIndex(line, -1) {
		ms = append(ms, match{m[0], m[1], piece{kind: 's', key: string(line[m[0]:m[6]]), text: line[m[6]:m[7]]}})
	}
	for _, m := range idNumberRe.FindAllSubmatchIndex(line, -1) {
		v, _ := strconv.ParseInt(string(line[m[4]:m[5]]), 10, 64)
		ms = append(ms, match{m[0], m[1], piece{kind: 'n', key: string(line[m[2]:m[3]]), number: v, text: line[m[0]:m[1]]}})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	var out []piece
	at := 0
	for _, m := range ms {
		if m.start < at {
			continue
		}
		out = append(out, piece{text: line[at:m.start]}, m.p)
		at = m.end
	}
	return append(out, piece{text: line[at:]})
}

// Lines made of the pieces ids are made of, in any order: keys that name
// an id or almost do, separators with and without spaces, values with
// escapes, numbers, ids inside ids' values.
func trickyLines(n int) []string {
	keys := []string{`id`, `_id`, `a_id`, `Id`, `aId`, `a_Id`, `_Id`, `uuid`, `Uuid`, `uid`, `aUuid`, `a_uuid`, `cause`, `causes`,
		`tool_use`, `ID`, `i d`, `é_id`, ``, `z_id`, `AZaz_id`, "@_id", "[_id", "`_id", "{_id"}
	seps := []string{`:`, `: `, ` :`, ` : `, `  :`, `:  `, ``}
	values := []string{`"x"`, `""`, `"a\"b"`, `"\"`, `"é\xff"`, `5`, ` 5`, `123`, `99999999999999999999`, `"id"`, `"5"`, `x`}
	raw := []string{`"`, `\`, `,`, `{`, `}`, ` `, `x`, `_`, `id`, `Id`, `:`, `5`}
	rng := rand.New(rand.NewSource(3))
	pick := func(s []string) string { return s[rng.Intn(len(s))] }
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			if rng.Intn(3) == 0 {
				b.WriteString(pick(raw))
				continue
			}
			b.WriteString(`"` + pick(keys) + `"` + pick(seps) + pick(values))
		}
		out[i] = b.String()
	}
	return out
}

func TestSplitMatchesRegexps(t *testing.T) {
	lines := trickyLines(3000)
	lines = append(lines, `{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_A1","name":"Bash"}]}}`,
		`{"id": 5, "cause": 4, "observation":"run"}`, `{"x_id":"id":5}`, `{"id" : "a", "id":"", "id":"a\"b"}`)
	for _, l := range lines {
		if got, want := split([]byte(l)), splitByRegexp([]byte(l)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", l, got, want)
		}
	}
}
