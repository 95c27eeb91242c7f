package httpapi_test

import (
	"os"
	"testing"

	"github.com/rewardsco/rewards/adapters/httpapi"
)

func TestMain(m *testing.M) {
	httpapi.VerifyJSON(true) // every answer of these tests written by encoding/json too, and compared
	os.Exit(m.Run())
}
