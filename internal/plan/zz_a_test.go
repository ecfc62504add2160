package plan

import (
	"fmt"
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

func TestZZA(t *testing.T) {
	rd := here.Doc(`
		# x

		~~~
		$ cloc --by-file --output-type=sloccount . > sloccount.scc
		~~~

		~~~
		$ cat sloccount.scc
		398 Go      ./main.go
		~~~
	`)
	fmt.Print(planText(Make([]byte(rd), Options{Repo: repoWith("hhatto/gocloc", "main.go", "go.mod")})))
}

func TestZZB(t *testing.T) {
	ws := lex("cloc --by-file --output-type=sloccount . > sloccount.scc")
	fmt.Println(writtenBy(simples(ws)))
	fmt.Println(usedFiles(simples(lex("cat sloccount.scc"))[0]))
}
