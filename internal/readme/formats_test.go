package readme

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// blocksText prints blocks as a test compares them: each block's line,
// language, mode, headings, text before, and its commands.
func blocksText(bs []Block) string {
	var b strings.Builder
	for _, bl := range bs {
		fmt.Fprintf(&b, "block %d-%d lang=%q indented=%v mode=%s headings=%q before=%q\n", bl.Line, bl.EndLine, bl.Lang, bl.Indented, bl.Mode, bl.Headings, bl.Before)
		if bl.Hints.Skip {
			b.WriteString("  hint: skip\n")
		}
		for _, c := range bl.Commands {
			fmt.Fprintf(&b, "  %d-%d %s\n", c.Line, c.EndLine, c.Text)
			for _, o := range c.Output {
				fmt.Fprintf(&b, "    > %d %s\n", o.Line, o.Text)
			}
		}
	}
	return b.String()
}

func TestReStructuredText(t *testing.T) {
	const src = `=======
widget
=======

A tool.

Installation
============

Install it with pip::

    pip install widget

.. code-block:: bash
   :caption: from source

   git clone https://github.com/acme/widget
   cd widget && make

Usage
-----

.. code-block:: console

    $ widget --version
    widget 1.2

.. readme2demo: skip

.. code:: sh

   widget --danger

.. highlight:: shell

Then::

   widget run \
     --fast

Python
~~~~~~

.. code-block:: python

   import widget
`
	got := blocksText(ExtractFile("README.rst", []byte(src)))
	assert.Equal(t, got, `block 12-12 lang="" indented=true mode=script headings=["widget" "Installation"] before="Install it with pip:"
  12-12 pip install widget
block 17-18 lang="bash" indented=false mode=script headings=["widget" "Installation"] before=""
  17-17 git clone https://github.com/acme/widget
  18-18 cd widget && make
block 25-26 lang="console" indented=false mode=console headings=["widget" "Installation" "Usage"] before=""
  25-25 widget --version
    > 26 widget 1.2
block 32-32 lang="sh" indented=false mode=script headings=["widget" "Installation" "Usage"] before=""
  hint: skip
  32-32 widget --danger
block 38-39 lang="shell" indented=false mode=script headings=["widget" "Installation" "Usage"] before="Then:"
  38-39 widget run \
  --fast
block 46-46 lang="python" indented=false mode= headings=["widget" "Installation" "Usage" "Python"] before=""
`)
}

func TestAsciiDoc(t *testing.T) {
	const src = `= widget
:source-language: sh

A tool.

== Installation

Install the release:

[source,bash]
----
curl -sSL https://example.org/install.sh | sh
----

.On Debian
[source]
----
sudo apt install widget
----

// readme2demo: skip
----
widget --danger
----

== Usage

[source,console]
....
$ widget --version
widget 1.2
....

[NOTE]
====
A note, not code.
====

[source,java]
----
Widget w = new Widget();
----
`
	got := blocksText(ExtractFile("README.adoc", []byte(src)))
	assert.Equal(t, got, `block 12-12 lang="bash" indented=false mode=script headings=["widget" "Installation"] before="Install the release:"
  12-12 curl -sSL https://example.org/install.sh | sh
block 18-18 lang="sh" indented=false mode=script headings=["widget" "Installation"] before="On Debian"
  18-18 sudo apt install widget
block 23-23 lang="" indented=false mode=script headings=["widget" "Installation"] before=""
  hint: skip
  23-23 widget --danger
block 30-31 lang="console" indented=false mode=console headings=["widget" "Usage"] before=""
  30-30 widget --version
    > 31 widget 1.2
block 41-41 lang="java" indented=false mode= headings=["widget" "Usage"] before="A note, not code."
`)
}

// Two-line section titles (a title over an underline of its length, as
// older AsciiDoc READMEs write them): the underline of "----" under a title
// is no listing delimiter; under a line of another length it still is.
// As in Asciidoctor, the lengths may differ by one character at most.
func TestAsciiDocTwoLineTitles(t *testing.T) {
	const src = `Tool: a text-mode tool
=====================

What is it?
-----------
Tool shows things. It functions mainly
as a browser.

Build
~~~~~

Run:

----
make
----

Then run it:
----
./tool
----
`
	got := blocksText(ExtractFile("README.adoc", []byte(src)))
	assert.Equal(t, got, `block 15-15 lang="" indented=false mode=script headings=["Tool: a text-mode tool" "What is it?" "Build"] before="Run:"
  15-15 make
block 20-20 lang="" indented=false mode=script headings=["Tool: a text-mode tool" "What is it?" "Build"] before="Then run it:"
  20-20 ./tool
`)
	for _, c := range []struct {
		title, under string
		level        int
	}{
		{"Usage", "-----", 2}, {"Usage", "----", 2}, {"Usage", "------", 2}, {"Usage", "---", 0}, {"Usage", "-------", 0},
		{"Title", "=====", 1}, {"Deep", "^^^^", 4}, {"Run:", "----", 2}, {" Indented", "---------", 0},
		{".Block title", "------------", 0}, {"* item", "------", 0}, {"Mixed", "--=--", 0}, {"Über", "----", 2}, {"x", "-", 0},
	} {
		assert.Check(t, adocUnderline(c.title, c.under) == c.level, "%q over %q", c.title, c.under)
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{
		"README.md": Markdown, "README": Markdown, "readme.markdown": Markdown, "README.txt": Markdown,
		"README.rst": ReStructuredText, "docs/README.REST": ReStructuredText,
		"README.adoc": AsciiDoc, "README.asciidoc": AsciiDoc, "README.asc": AsciiDoc,
	} {
		assert.Equal(t, FormatOf(name), want, name)
	}
}
