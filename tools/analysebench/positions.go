package main

// mateSets are the mate positions by game, each with its nominal length in
// plies (a tsume problem's; the reference search measures the distance the
// engines must find, futile interpositions counted).
var mateSets = map[string][]mate{
	"shogi": shogiMates(),
	"xiangqi": {
		// plugins/xiangqi/engine/engine_test.go mateInOne: mates in one.
		{"fen 5k3/1c1PP4/8b/9/r1P2NP1P/9/9/4B4/4A4/2BAK4 w - - 0 47", 1},
		{"fen 2bakab2/9/2P6/9/9/9/1p2p1c1p/3K2p2/9/1n4B2 b - - 0 51", 1},
		{"fen 3R5/2n1k1r1r/4baC2/2p1N3p/p8/2P6/P3P2cP/4B4/3R5/3AKAB2 w - - 1 27", 1},
		{"fen 2b1ka3/4a4/9/p3p3p/9/P7P/6n2/5K1R1/3r5/3A5 b - - 12 39", 1},
		{"fen 4R4/1R7/5k3/3C5/pPP6/6P2/4P3P/2N1B1N2/9/3AKAB2 w - - 0 44", 1},
		{"fen 3akab2/9/2n1b4/p1p1p3p/6p2/P7P/6n2/5C3/4r1c2/c2K1Ar2 b - - 0 30", 1},
		{"fen 1r1k5/4R4/b2c3P1/2p1p1P2/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 1 25", 1},
		{"fen 3aka3/9/4b4/4p4/p5p1p/2p6/4n4/4K3c/9/7r1 b - - 1 33", 1},
		// plugins/xiangqi/engine/analyse_test.go: mates in three plies.
		{"fen 2b1ka3/4a4/9/p3p3p/9/P7P/2nr5/4K2R1/9/3A5 b - - 6 36 moves d3e3 e2d2", 3},
		{"fen 2b1ka3/4a4/9/p3p3p/9/P7P/2n6/5K1R1/3r5/3A5 b - - 8 37 moves c3e4 f2e2", 3},
		{"fen 4R4/1r6R/5k3/p2C5/1PP3p2/9/4P1P1P/2N1B1N2/9/3AKAB2 w - - 2 42 moves i8b8 a6a5", 3},
		{"fen r2k5/4R4/b2c3r1/2p1p1PP1/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 7 24 moves h6h7 a9a8", 3},
		// plugins/xiangqi/engine/engine_test.go mateInThree: three of
		// the mating side's moves, five plies.
		{"fen 2b1ka3/4a4/9/p3p3p/9/P7P/2nr5/4K2R1/9/3A5 b - - 6 36", 5},
		{"fen 2b1ka3/4a4/9/p3p3p/9/P7P/2n6/5K1R1/3r5/3A5 b - - 8 37", 5},
		{"fen 4R4/1r6R/5k3/p2C5/1PP3p2/9/4P1P1P/2N1B1N2/9/3AKAB2 w - - 2 42", 5},
		{"fen r2k5/4R4/b2c3r1/2p1p1PP1/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 7 24", 5},
		{"fen 2baka3/9/9/p3p1p1p/9/2p1c1P1P/P3n4/9/1C3N1r1/3K5 b - - 8 24", 5},
		{"fen 3aka3/9/4b4/p3p1p2/P7p/2p3P2/4n4/8c/4K4/7r1 b - - 0 31", 5},
		{"fen rnbk1abC1/6n1r/4c1c2/p1p1C1N1P/8R/2PN5/P3P1P2/9/9/2BAKAB2 w - - 0 18", 5},
		{"fen 7C1/3kaR3/1R6r/2p1C1p2/p1b5p/9/P1P1P1P1P/2N5N/9/2BAKAB2 w - - 6 26", 5},
	},
}

func shogiMates() []mate {
	var out []mate
	add := func(n int, sfens ...string) {
		for _, s := range sfens {
			out = append(out, mate{tsume(s), n})
		}
	}
	// github.com/antma/tsumeshogi-check tests/tsume1.rs.
	add(1,
		"k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1",
		"3k5/9/3S5/9/9/9/9/9/9 b S2r2b4g2s4n4l18p 1",
		"k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1",
		"7pk/9/7K1/5+r3/9/9/9/1B7/R8 b b4g4s4n4l17p 1",
		"4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
		"4k4/9/4S4/9/9/9/9/9/9 b S2r2b4g2s4n4l18p 1",
		"9/2B6/3G2r2/3pkL1R1/3gsg3/3S2B2/3g5/4N4/4L4 b 2s3n2l17p 1",
	)
	// plugins/shogi/engine/engine_test.go mateInOne and mateInThree.
	add(1,
		"8k/9/5Bl2/7L1/9/9/9/9/4K4 b L 1",
		"5k1pR/9/4+B4/3n5/9/9/9/9/4K4 b LP 1",
		"2k6/9/2+P1R4/9/9/9/9/9/4K4 b BP 1",
	)
	add(3,
		"9/7nk/6+R2/6n1S/9/9/9/9/4K4 b RP 1",
		"8k/7L1/9/6L2/9/9/9/9/4K4 b LP 1",
		"8k/8l/7s1/5SS2/9/9/9/9/4K4 b BG 1",
		"5k3/9/3+R3L1/9/9/9/9/9/4K4 b GL 1",
	)
	// tsume3.rs.
	add(3,
		"3sks3/9/4S4/9/9/8B/9/9/9 b S 1",
		"9/4k4/9/4P4/9/9/9/9/9 b 2G2r2b4s4n4l17p 1",
		"9/6k2/9/5G3/4G4/4P4/9/9/9 b 2G2r2b4s4n4l17p 1",
		"7nl/7k1/6Ppp/9/9/9/9/9/9 b 2G2r2b2g4s3n3l15p 1",
		"7nl/7k1/5+Pppp/9/9/9/9/9/9 b GS2r2b2g3s3n3l14p 1",
		"5g1nl/4g1sk1/4ppppp/9/4B4/9/9/9/9 b GN2rbg3s2n3l13p 1",
		"5k3/7gR/4S4/7L1/9/9/9/9/9 b Sr2b3g2s4n3l18p 1",
		"8l/6nkg/5PpBp/5+r3/7R1/9/9/9/9 b b3g4s3n3l15p 1",
	)
	// tsume5.rs.
	add(5,
		"9/9/5k3/9/4G4/4P4/9/9/9 b 3G2r2b4s4n4l17p 1",
		"6knl/6s2/5Pppp/9/9/9/9/9/9 b G2S2r2b3gs3n3l14p 1",
		"7nl/7k1/6ppp/9/9/9/9/9/5R3 b Sr2b4g3s3n3l15p 1",
		"7nl/5+R1gk/6Ppp/9/9/9/9/9/9 b Gr2b2g4s3n3l15p 1",
		"4R2nl/6sk1/6pp1/8p/9/9/9/9/9 b BGLrb3g3s3n2l15p 1",
		"l6nl/3+R1pk2/3p3gp/p1p3p2/1p1nsN3/2P3P1P/PP1P1S3/1SG2GK2/LN6L b BGPrbs4p 1",
		"3sr4/4p4/2Sks1n2/3p1P3/2L3N2/4P1P2/4N4/9/9 b BNb3gs3l13p 1",
		"l2k5/9/3S2S2/9/9/9/9/9/9 b B2N2rb4g2s2n3l18p 1",
		"9/9/3S5/3p1p3/4kb3/3P2s2/4P4/4N4/9 b RNrb3g2s2n4l14p 1",
		"7nl/7k1/9/9/7BL/5+r1R1/9/9/9 b 2Gb2g4s3n2l18p 1",
		"7r1/7k1/4r4/5N+Bp1/8p/9/9/9/9 b G2Nb3g4sn4l16p 1",
	)
	// tsume7.rs.
	add(7,
		"9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1",
		"+R4G1nl/6k2/4ppppp/9/9/9/9/9/9 b r2b3g4s3n3l13p 1",
	)
	return out
}
