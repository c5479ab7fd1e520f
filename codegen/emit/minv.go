package emit

// emitMinv is not written yet.
func emitMinv(g *gen) {}
