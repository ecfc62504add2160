package htmlreport_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/htmlreport"
)

func ExampleRender() {
	exit := 1
	log := &commandlog.Log{
		Engine:  "markdown",
		Outcome: commandlog.OutcomeFailed,
		Commands: []commandlog.Command{{
			ID: "1", Command: "make demo", Output: "<b>no rule to make target</b>\n",
			ExitCode: &exit, Status: commandlog.StatusFailed,
		}},
	}
	var page bytes.Buffer
	if err := htmlreport.Render(&page, log, htmlreport.Options{Readme: "README.md"}); err != nil {
		fmt.Println(err)
		return
	}
	s := page.String()
	fmt.Println(strings.Contains(s, `<span class="badge" id="outcome">failed</span>`))
	fmt.Println(strings.Contains(s, `<li id="c1" class="cmd st-failed" data-status="failed"><details open>`))
	fmt.Println(strings.Contains(s, "<b>"), strings.Contains(s, `\u003cb\u003eno rule`))
	// Output:
	// true
	// true
	// false true
}
