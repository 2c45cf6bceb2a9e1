package proc

import "strings"

// localRepoEnv are the variables that tie git to one repository, which git
// clears for a command it runs in another (environment.c local_repo_env).
var localRepoEnv = []string{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
	"GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
}

// WithoutRepoEnv returns env ("key=value" entries) without the variables
// git clears for a command it runs in another repository (local_repo_env,
// and the GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> pairs of
// GIT_CONFIG_COUNT): a git started with it finds its repository itself.
func WithoutRepoEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_")
		for _, l := range localRepoEnv {
			drop = drop || k == l
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
