package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// Blocks that are a file's content: written where the README says when a
// later line uses the file, else not run; a script's body; settings.
var fileContentCases = []planCase{
	{
		name: "a first line that names the file a later command uses",
		readme: here.Doc(`
			# lib

			~~~js
			// hello.js
			console.log('hi')
			~~~

			~~~sh
			node hello.js
			~~~
		`),
		repo: repoWith("acme/lib"),
		want: here.Doc(`
			4 step write-file cat > hello.js <<'README2DEMO_EOF'
			9 probe command node hello.js
		`),
	},
	{
		name: "a first line that says where to save it",
		readme: here.Doc(`
			~~~python
			# save this as app.py
			print("hi")
			~~~

			~~~sh
			python3 app.py
			~~~
		`),
		want: here.Doc(`
			2 step write-file cat > app.py <<'README2DEMO_EOF'
			7 probe command python3 app.py
		`),
	},
	{
		name: "the text says to create the file a later command uses",
		readme: here.Doc(`
			# x

			Create a file ` + "`main.py`" + ` with:

			~~~python
			print("hi")
			~~~

			~~~sh
			python main.py
			~~~
		`),
		want: here.Doc(`
			6 step write-file cat > main.py <<'README2DEMO_EOF'
			10 probe command python main.py
		`),
	},
	{
		name: "a file nothing later uses is not written",
		readme: here.Doc(`
			# x

			Create a file ` + "`main.py`" + ` with:

			~~~python
			print("hi")
			~~~

			~~~python
			# save this as other.py
			print("hi")
			~~~
		`),
		want: here.Doc(`
			6 skip other-language (no command)
			10 skip other-language (no command)
		`),
	},
	{
		name: "a file only skipped lines use is not written",
		readme: here.Doc(`
			# x

			Create a file ` + "`main.py`" + ` with:

			~~~python
			print("hi")
			~~~

			~~~sh
			brew install python && python main.py
			~~~
		`),
		want: here.Doc(`
			6 skip file-content cat > main.py <<'README2DEMO_EOF'
			10 skip other-platform brew install python && python main.py
		`),
	},
	{
		name: "a file the repository has is shown, not written",
		readme: here.Doc(`
			~~~python
			# save this as app.py
			print("hi")
			~~~

			~~~sh
			python3 app.py
			~~~
		`),
		repo: repoWith("acme/x", "app.py"),
		want: here.Doc(`
			2 skip other-language (no command)
			7 probe command python3 app.py
		`),
	},
	{
		name: "the file hint writes the block",
		readme: here.Doc(`
			<!-- readme2demo: file=conf/x.toml -->
			~~~toml
			k = 1
			~~~

			<!-- readme2demo: file=x.toml skip -->
			~~~toml
			k = 1
			~~~
		`),
		want: here.Doc(`
			3 step write-file mkdir -p -- conf && cat > conf/x.toml <<'README2DEMO_EOF'
			8 skip hint cat > x.toml <<'README2DEMO_EOF'
		`),
	},
	{
		name: "a line that uses a script's arguments",
		rule: "script-arguments",
		readme: here.Doc(`
			# gron

			Or create a shell script in your $PATH named ungron:

			~~~
			gron --ungron "$@"
			~~~

			~~~sh
			awk '{print $1}' notes.txt
			~~~
		`),
		repo: repoWith("tomnomnom/gron", "notes.txt"),
		want: here.Doc(`
			6 skip file-content gron --ungron "$@"
			10 probe command awk '{print $1}' notes.txt
		`),
	},
	{
		name:  "a .env file's settings",
		wrong: "the block is the content of the .env file the text names, which nothing runs on: file-content, not optional (settings-reference decides before file-target)",
		readme: here.Doc(`
			## Usage

			Add your application configuration to your ` + "`.env`" + ` file in the root of your project:

			~~~shell
			S3_BUCKET=YOURS3BUCKET
			SECRET_KEY=YOURSECRETKEYGOESHERE
			~~~
		`),
		want: here.Doc(`
			6 skip optional S3_BUCKET=YOURS3BUCKET
			7 skip optional SECRET_KEY=YOURSECRETKEYGOESHERE
		`),
	},
}

func TestFileContent(t *testing.T) { testPlans(t, fileContentCases) }
