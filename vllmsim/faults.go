package vllmsim

// faultDraw is what the fault injector decided for one request.
type faultDraw struct {
	errorStatus     int // 0: answer normally
	disconnectAfter int // 0: never; else cut the connection after this many tokens
	stallAfter      int // 0: never; else pause after this many tokens
}

// drawFaults decides the faults of the n-th request (counting from 0 in
// arrival order) from the seed alone, so runs are reproducible.
func drawFaults(f Faults, seed int64, n uint64) faultDraw {
	base := splitmix64(uint64(seed)*0x632be59bd9b4e019 ^ n)
	u := func(k uint64) float64 { return unitFloat(splitmix64(base + k)) }
	var d faultDraw
	if f.ErrorRate > 0 && u(1) < f.ErrorRate {
		d.errorStatus = f.ErrorStatus
		return d
	}
	if f.DisconnectRate > 0 && u(2) < f.DisconnectRate {
		d.disconnectAfter = max(f.DisconnectAfter, 1)
	}
	if f.StallRate > 0 && f.StallFor > 0 && u(3) < f.StallRate {
		d.stallAfter = max(f.StallAfter, 1)
	}
	return d
}
