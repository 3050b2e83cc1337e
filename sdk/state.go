package sdk

import (
	"encoding/binary"
	"hash/crc32"
)

// MaxRecordMoves is the most moves a game record may hold, shared by every
// variant's State decoder, its imports and its play: past it a record is
// refused before it is replayed, so that no request, whatever its bytes,
// costs more than replaying this many moves. No real game comes near it.
const MaxRecordMoves = 10_000

// stateMagic starts every sealed state, so that bytes from elsewhere are
// recognised before any decoding.
const stateMagic = "BNM"

// SealState wraps a variant's encoded game in an envelope that names the
// variant and the encoding's version and carries a checksum. Variants need not
// use it, but OpenState then gives them foreign- and garbage-byte detection
// for free.
func SealState(variant string, version byte, payload []byte) State {
	b := make([]byte, 0, len(stateMagic)+2+len(variant)+len(payload)+4)
	b = append(b, stateMagic...)
	b = append(b, version, byte(len(variant)))
	b = append(b, variant...)
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// OpenState checks a sealed state and returns its version and payload. Any
// defect (wrong magic, another variant, a bad checksum, truncation) is a
// *RuleError with code CodeBadState.
func OpenState(variant string, s State) (version byte, payload []byte, err error) {
	n := len(stateMagic) + 2
	if len(s) < n+4 || string(s[:len(stateMagic)]) != stateMagic {
		return 0, nil, Errorf(CodeBadState, "not a game state")
	}
	body, sum := s[:len(s)-4], binary.BigEndian.Uint32(s[len(s)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, nil, Errorf(CodeBadState, "game state is corrupt")
	}
	version, idLen := s[len(stateMagic)], int(s[len(stateMagic)+1])
	if len(body) < n+idLen || string(body[n:n+idLen]) != variant {
		return 0, nil, Errorf(CodeBadState, "game state belongs to another game")
	}
	return version, body[n+idLen:], nil
}
