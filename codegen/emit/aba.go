package emit

// emitABA is not written yet.
func emitABA(g *gen) {}
