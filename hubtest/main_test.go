package hubtest_test

import (
	"os"
	"testing"

	"hub/hubtest"
)

func TestMain(m *testing.M) { os.Exit(hubtest.Main(m)) }
