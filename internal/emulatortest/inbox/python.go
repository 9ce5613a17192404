package inbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
)

// ErrNoPython is returned when python3 is not on the PATH.
var ErrNoPython = errors.New("python3 is not on the PATH")

// pythonDefects is the reader: Python's email package with its default
// (RFC 5322 and 2231 aware) policy, walking every part and header.
const pythonDefects = `
import base64, email, email.policy, json, sys
out = []
for raw in json.load(sys.stdin):
    msg = email.message_from_bytes(base64.b64decode(raw), policy=email.policy.default)
    found = []
    for part in msg.walk():
        found += ["%s: %s" % (type(d).__name__, d) for d in part.defects]
        for name, value in part.items():
            found += ["%s: %s: %s" % (name, type(d).__name__, d) for d in getattr(value, "defects", ())]
        part.get_filename()
    out.append(found)
json.dump(out, sys.stdout)
`

// PythonDefects has Python's email package read each message and returns
// the defects it reports, message by message: a third party's view of
// our MIME. ErrNoPython when python3 is not installed.
func PythonDefects(ctx context.Context, raws [][]byte) ([][]string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, ErrNoPython
	}
	in, err := json.Marshal(raws) // []byte marshals as base64
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, py, "-c", pythonDefects)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("python3: %w: %s", err, stderr.Bytes())
	}
	var defects [][]string
	if err := json.Unmarshal(out, &defects); err != nil {
		return nil, fmt.Errorf("python3 output %q: %w", out, err)
	}
	return defects, nil
}
