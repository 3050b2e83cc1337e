package room

import "github.com/banmen/banmen/sdk"

// Current is the room's game as it stands: its variant, the state of the
// current round (a copy of the cache the log rebuilds) and the version it is
// at. The host exports a room's record from it; clients never get the state.
func (r *Room) Current() (variant string, st sdk.State, version int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meta.Variant, append(sdk.State(nil), r.state...), r.version
}
