package redact_test

import (
	"encoding/base64"
	"fmt"

	"github.com/readme2demo/readme2demo/internal/redact"
)

func ExampleRedactor_String() {
	key := "sk-ant-api03-Example7Key9With8Digits6AndCase5"
	r := redact.New([]string{key})
	fmt.Println(r.String("ANTHROPIC_API_KEY=" + key))
	fmt.Println(r.String("cut: " + key[7:]))
	fmt.Println(r.String("b64: " + base64.StdEncoding.EncodeToString([]byte("K="+key))))
	fmt.Println(r.String("token ghp_" + "0123456789abcdefABCDEF0123456789abcd"))
	// Output:
	// ANTHROPIC_API_KEY=[REDACTED:secret]
	// cut: [REDACTED:secret]
	// b64: [REDACTED:secret]
	// token [REDACTED:github-token]
}
