#!/bin/sh
# Rebuilds the site's two fonts, cut out of Noto CJK (SIL Open Font License
# 1.1, see OFL.txt), so that what the games draw looks the same everywhere
# and needs no font request to anyone but this site, even on a machine
# with no Japanese or Chinese font:
#   pieces.woff2    the pieces and the board's own characters (the shogi
#                   board's rank numerals 一…九, the river's 楚河漢界), from
#                   Noto Serif CJK JP Bold, as the board draws them;
#   notation.woff2  the characters of the move names the plugins write
#                   (▲７六歩, △同　歩, 炮二平五 …), from Noto Sans CJK
#                   JP Regular, the last resort of the pages' own font
#                   list: a device with a CJK font of its own uses that, and
#                   a browser fetches this file only for a character it
#                   has no other font for.
# It also writes ../favicon.svg, whose 盤 is the Serif Bold glyph as a path
# (an SVG image cannot use the page's fonts).
# Each file's characters are its @font-face's unicode-range in
# ../css/site.css: print them with "sh subset.sh --ranges" after a change.
# Needs Debian's fonts-noto-cjk, python3-fonttools and python3-brotli.
set -e
cd "$(dirname "$0")"
PIECES="飛角金銀桂香歩玉王龍馬全圭杏と帥將仕士相象傌俥車炮砲兵卒楚河漢界一二三四五六七八九"
NOTATION="▲△　１２３４５６７８９一二三四五六七八九同成不打右左直上引寄歩香桂銀金角飛玉王と杏圭全馬龍竜中前后进退平车马炮相象仕士帅将兵卒"
NOTO=/usr/share/fonts/opentype/noto
ranges() {
	/usr/bin/python3 -c 'import sys; print(", ".join("U+%X" % c for c in sorted({ord(c) for c in sys.argv[1]})))' "$1"
}
if [ "$1" = --ranges ]; then
	echo "pieces:   $(ranges "$PIECES")"
	echo "notation: $(ranges "$NOTATION")"
	exit 0
fi
subset() { # font text output
	/usr/bin/python3 -m fontTools.subset "$1" --font-number=0 --text="$2" --flavor=woff2 \
		--output-file="$3" --layout-features='' --no-hinting --desubroutinize --name-IDs='*'
}
subset "$NOTO/NotoSerifCJK-Bold.ttc" "$PIECES" pieces.woff2
subset "$NOTO/NotoSansCJK-Regular.ttc" "$NOTATION" notation.woff2
/usr/bin/python3 - "$NOTO/NotoSerifCJK-Bold.ttc" ../favicon.svg <<'PY'
import sys
from fontTools.ttLib import TTCollection
from fontTools.pens.svgPathPen import SVGPathPen
from fontTools.pens.transformPen import TransformPen
font = TTCollection(sys.argv[1]).fonts[0]
glyphs, name = font.getGlyphSet(), font.getBestCmap()[ord("盤")]
s = 15 / font["head"].unitsPerEm  # 15 units of the 32-unit icon, centred, baseline at 25.2
pen = SVGPathPen(glyphs, ntos=lambda v: ("%.2f" % v).rstrip("0").rstrip("."))
glyphs[name].draw(TransformPen(pen, (s, 0, 0, -s, 16 - font["hmtx"][name][0] * s / 2, 25.2)))
with open(sys.argv[2], "w") as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
            '<path d="M16 2 27 7 30 30H2L5 7Z" fill="#e8c98a" stroke="#1f1b16" stroke-width="1.5"/>'
            '<path d="%s" fill="#1f1b16"/></svg>\n' % pen.getCommands())
PY
