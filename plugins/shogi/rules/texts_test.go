package rules_test

import (
	"testing"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk/sdktest"
)

// TestTexts keeps the variant's texts complete in the site's eight
// languages, with the same placeholders as English.
func TestTexts(t *testing.T) {
	d := rules.Variant{}.Describe()
	if err := sdktest.CheckTexts(d); err != nil {
		t.Error(err)
	}
	if err := sdktest.CheckTextsComplete(d, "en", "uk", "de", "ru", "nl", "it", "ja", "zh"); err != nil {
		t.Error(err)
	}
}
