package loose_test

import "github.com/git-durable/git-durable/internal/packtest"

func deflate(s string) []byte { return packtest.Deflate([]byte(s)) }
