// Package locales embeds the site's strings: one JSON file per language
// (en.json, uk.json, …), a flat object from key to text. It holds data only;
// platform/internal/i18n reads it. A language's file must never hold a key
// that en.json lacks: English is the complete reference.
package locales

import "embed"

// FS holds every *.json file of this directory.
//
//go:embed *.json
var FS embed.FS
