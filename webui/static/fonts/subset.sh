#!/bin/sh
# Rebuilds pieces.woff2: the piece and board characters cut out of Noto Serif
# CJK JP Bold (SIL Open Font License 1.1, see OFL.txt), so the boards look the
# same everywhere without a font request to anyone but this site.
# Needs Debian's fonts-noto-cjk, python3-fonttools and python3-brotli.
set -e
cd "$(dirname "$0")"
CHARS="飛角金銀桂香歩玉王龍馬全圭杏と帥將仕士相象傌俥車炮砲兵卒楚河漢界"
/usr/bin/python3 -m fontTools.subset /usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc \
	--font-number=0 --text="$CHARS" --flavor=woff2 --output-file=pieces.woff2 \
	--layout-features='' --no-hinting --desubroutinize --name-IDs='*'
