package emit

// emitMassMatrix is not written yet.
func emitMassMatrix(g *gen) {}
