package repo

import "testing"

func TestUnpackLimit(t *testing.T) {
	tests := []struct {
		cfg     Config
		cloning bool
		want    uint32
		err     bool
	}{
		{Config{}, false, DefaultUnpackLimit, false},
		{Config{}, true, 0, false},
		{Config{{Key: "transfer.unpacklimit", Value: "7"}}, false, 7, false},
		{Config{{Key: "transfer.unpacklimit", Value: "7"}}, true, 7, false},
		{Config{{Key: "fetch.unpacklimit", Value: "3"}, {Key: "transfer.unpacklimit", Value: "7"}}, false, 3, false},
		{Config{{Key: "fetch.unpacklimit", Value: "-1"}}, false, 0, false},
		{Config{{Key: "fetch.unpacklimit", Value: "1k"}}, false, 1024, false},
		{Config{{Key: "fetch.unpacklimit", Value: "many"}}, false, 0, true},
	}
	for i, tt := range tests {
		got, err := tt.cfg.UnpackLimit(tt.cloning)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("%d: %d, %v; want %d, error %v", i, got, err, tt.want, tt.err)
		}
	}
}
