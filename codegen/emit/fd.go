package emit

// emitForwardDynamics is not written yet.
func emitForwardDynamics(g *gen) {}
