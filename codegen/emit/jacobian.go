package emit

// emitFrameJacobian is not written yet.
func emitFrameJacobian(g *gen) {}
