package integration

import "github.com/git-durable/git-durable/pack"

func packApply(base, delta []byte) ([]byte, error) { return pack.ApplyDelta(nil, base, delta) }
