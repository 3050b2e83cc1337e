package sdk

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A variant's looks are small SVG: Description.Card, the picture of its home
// card, and PieceKind.Drawing, pieces drawn where glyph tokens do not fit
// (discs, stones). A host passes them through SanitizeSVG before any page
// shows them, and so should a variant's tests (sdktest does): only drawing
// elements and presentation attributes, no scripts, no event handlers, no
// styles, no references outside the drawing itself, within a size budget.

// The size budgets of a variant's looks, in bytes of SVG text.
const (
	CardBudget    = 16 << 10 // Description.Card
	DrawingBudget = 4 << 10  // one PieceKind.Drawing entry
)

// svgElements are the elements a drawing may use: shapes, groups, text and
// gradients.
var svgElements = map[string]bool{
	"svg": true, "g": true, "path": true, "circle": true, "ellipse": true, "rect": true, "line": true,
	"polyline": true, "polygon": true, "text": true, "tspan": true, "title": true, "desc": true,
	"defs": true, "linearGradient": true, "radialGradient": true, "stop": true, "use": true,
}

// svgAttributes are the attributes they may carry: geometry and
// presentation. Any other (on*, style, href to elsewhere…) is refused.
var svgAttributes = map[string]bool{
	"xmlns": true, "viewBox": true, "width": true, "height": true, "preserveAspectRatio": true,
	"id": true, "class": true, "transform": true, "d": true, "points": true, "pathLength": true,
	"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "cx": true, "cy": true,
	"r": true, "rx": true, "ry": true, "dx": true, "dy": true, "fx": true, "fy": true,
	"fill": true, "fill-opacity": true, "fill-rule": true, "stroke": true, "stroke-width": true,
	"stroke-opacity": true, "stroke-linecap": true, "stroke-linejoin": true, "stroke-dasharray": true,
	"stroke-miterlimit": true, "opacity": true, "color": true, "clip-rule": true, "vector-effect": true,
	"font-size": true, "font-weight": true, "font-family": true, "text-anchor": true,
	"dominant-baseline": true, "letter-spacing": true,
	"offset": true, "stop-color": true, "stop-opacity": true, "gradientUnits": true,
	"gradientTransform": true, "spreadMethod": true, "href": true,
}

// localRef is the only reference a value may hold: to an element of the
// same drawing.
var (
	localRef = regexp.MustCompile(`^#[A-Za-z][A-Za-z0-9_-]*$`)
	// urlRef is the only url() a value may hold, url(#id), quoted or not;
	// any other "url(" (another target, no closing parenthesis) is
	// refused.
	urlRef   = regexp.MustCompile(`(?i)url\(\s*(['"]?)#([A-Za-z][A-Za-z0-9_-]*)(['"]?)\s*\)`)
	idPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	svgID    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

// SanitizeSVG checks an SVG text and writes it again from what it read: a
// whole document (an <svg> root, for a card) or, with fragment, the markup
// of a piece drawn in a 100-unit cell centred on 0,0 (no <svg> root). It
// refuses, with an error that names the first problem, anything but the
// drawing elements and attributes above, references other than "#id" of the
// same drawing, comments and processing instructions, text over budget
// bytes, and malformed XML. The result holds no namespace prefixes and
// nothing that could run or fetch.
func SanitizeSVG(src string, fragment bool, budget int) (string, error) {
	return SanitizeSVGPrefixed(src, fragment, budget, "")
}

// MaxSVGUses bounds the <use> elements of one drawing: each may copy a
// group holding more, so that a few bytes could draw millions of shapes.
const MaxSVGUses = 16

// SanitizeSVGPrefixed is SanitizeSVG that also prefixes every id of the
// drawing, and every reference to one, with prefix (letters, digits, '-'
// and '_'), so that a drawing put into a page can neither reuse an id of
// the page (such as its data elements) nor another drawing's. A host gives
// each drawing a prefix of its own.
func SanitizeSVGPrefixed(src string, fragment bool, budget int, prefix string) (string, error) {
	if prefix != "" && !idPrefix.MatchString(prefix) {
		return "", fmt.Errorf("svg: id prefix %q: want letters, digits, '-' and '_', a letter first", Clip(prefix))
	}
	if len(src) > budget {
		return "", fmt.Errorf("svg: %d bytes, over the budget of %d", len(src), budget)
	}
	in := src
	if fragment {
		in = `<g>` + src + `</g>`
	}
	dec := xml.NewDecoder(strings.NewReader(in))
	dec.Strict = true
	var out bytes.Buffer
	depth, roots, uses := 0, 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("svg: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if t.Name.Space != "" && t.Name.Space != "http://www.w3.org/2000/svg" {
				return "", fmt.Errorf("svg: element %s:%s of another namespace", t.Name.Space, name)
			}
			if !svgElements[name] {
				return "", fmt.Errorf("svg: element <%s> is not allowed", Clip(name))
			}
			if name == "use" {
				if uses++; uses > MaxSVGUses {
					return "", fmt.Errorf("svg: more than %d <use> elements", MaxSVGUses)
				}
			}
			if depth == 0 {
				roots++
				if roots > 1 {
					return "", errors.New("svg: more than one root element")
				}
				if !fragment && name != "svg" {
					return "", fmt.Errorf("svg: the root is <%s>, want <svg>", Clip(name))
				}
			} else if name == "svg" {
				return "", errors.New("svg: a nested <svg>")
			}
			depth++
			if depth > 32 {
				return "", errors.New("svg: nested more than 32 deep")
			}
			if fragment && depth == 1 {
				continue // the wrapper <g>
			}
			out.WriteString("<" + name)
			for _, a := range t.Attr {
				an := a.Name.Local
				switch {
				case a.Name.Space == "xmlns" || (a.Name.Space == "" && an == "xmlns"):
					continue // namespaces are written again below
				case a.Name.Space == "http://www.w3.org/1999/xlink" && an == "href":
				case a.Name.Space != "":
					return "", fmt.Errorf("svg: attribute %s:%s is not allowed", Clip(a.Name.Space), Clip(an))
				case !svgAttributes[an]:
					return "", fmt.Errorf("svg: attribute %s on <%s> is not allowed", Clip(an), name)
				}
				if err := checkSVGValue(an, a.Value); err != nil {
					return "", err
				}
				v := a.Value
				if prefix != "" {
					v = prefixRefs(an, v, prefix)
				}
				fmt.Fprintf(&out, ` %s="%s"`, an, escapeAttr(v))
			}
			if name == "svg" {
				out.WriteString(` xmlns="http://www.w3.org/2000/svg"`)
			}
			out.WriteString(">")
		case xml.EndElement:
			depth--
			if fragment && depth == 0 {
				continue
			}
			out.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			if depth == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return "", errors.New("svg: text outside the root element")
				}
				continue
			}
			xml.EscapeText(&out, t)
		case xml.Comment:
			// dropped
		case xml.ProcInst:
			if t.Target != "xml" {
				return "", fmt.Errorf("svg: processing instruction <?%s", Clip(t.Target))
			}
		case xml.Directive:
			return "", errors.New("svg: a <!DOCTYPE> or other directive (entities are not allowed)")
		}
	}
	if roots == 0 {
		return "", errors.New("svg: empty")
	}
	return out.String(), nil
}

// checkSVGValue refuses a value that reaches outside the drawing or could
// run: an href that is not "#id", url() other than url(#id), and any
// scheme.
func checkSVGValue(name, v string) error {
	lv := strings.ToLower(v)
	if name == "href" {
		if !localRef.MatchString(v) {
			return fmt.Errorf("svg: href %q is not a reference within the drawing (#id)", Clip(v))
		}
		return nil
	}
	if name == "id" && !svgID.MatchString(v) {
		return fmt.Errorf("svg: id %q: want letters, digits, '-' and '_', a letter first", Clip(v))
	}
	ok := 0
	for _, m := range urlRef.FindAllStringSubmatch(v, -1) {
		if m[1] == m[3] {
			ok++
		}
	}
	if strings.Count(lv, "url(") != ok {
		return fmt.Errorf("svg: %s=%q refers outside the drawing (only url(#id) is allowed)", name, Clip(v))
	}
	for _, bad := range []string{"javascript:", "data:", "://", "expression(", "@import", "\\"} {
		if strings.Contains(lv, bad) {
			return fmt.Errorf("svg: %s=%q holds %q", name, Clip(v), bad)
		}
	}
	return nil
}

// prefixRefs prefixes the id an attribute defines or refers to.
func prefixRefs(name, v, prefix string) string {
	switch name {
	case "id":
		return prefix + v
	case "href":
		return "#" + prefix + v[1:]
	}
	if !strings.Contains(strings.ToLower(v), "url(") {
		return v
	}
	return urlRef.ReplaceAllString(v, "url(#"+prefix+"$2)")
}

func escapeAttr(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}
