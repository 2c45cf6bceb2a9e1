package upstream

import (
	"fmt"
	"strconv"

	"github.com/git-durable/git-durable/internal/repo"
)

// protocolVersion is the protocol version git asks an upstream for
// (protocol.c get_protocol_version_config): protocol.version, else
// GIT_TEST_PROTOCOL_VERSION, else 2. git passes a helper with the fetch
// capability no protocol of its own (transport-helper.c sets GIT_DIR
// alone), so the helper reads the setting as remote-curl does.
func protocolVersion(cfg repo.Config, getenv func(string) string) (int, error) {
	if e, ok := cfg.Get("protocol.version"); ok {
		v, err := parseVersion(e.Value)
		if err != nil {
			return 0, fmt.Errorf("unknown value for config 'protocol.version': %s", e.Value)
		}
		return v, nil
	}
	if s := getenv("GIT_TEST_PROTOCOL_VERSION"); s != "" {
		v, err := parseVersion(s)
		if err != nil {
			return 0, fmt.Errorf("unknown value for GIT_TEST_PROTOCOL_VERSION: %s", s)
		}
		return v, nil
	}
	return 2, nil
}

func parseVersion(s string) (int, error) {
	switch s {
	case "0", "1", "2":
		return strconv.Atoi(s)
	}
	return 0, strconv.ErrSyntax
}

// versionFor is the version asked of service: git has no protocol v2 for
// a push and asks receive-pack for v0 then (connect.c, remote-curl.c).
func versionFor(version int, service string) int {
	if version == 2 && service == "git-receive-pack" {
		return 0
	}
	return version
}
