package emit

import "github.com/grid-rbd/grid-rbd/codegen/model"

// emitMinv writes minv_inner and its ladder: M(q)⁻¹ by the analytical algorithm (the articulated-body
// algorithm on unit efforts at zero velocity and gravity, every column at once), without factorising M.
// The algorithm is grid/algorithms/minv.cuh.
func emitMinv(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	temp := minvTemp(r, g.rolled)
	g.innerDoc("Inverse of the joint-space inertia matrix by the analytical algorithm: s_Minv = M(q)⁻¹, full and", temp,
		"exactly symmetric. No factorisation of M: the articulated-body algorithm on unit efforts at qd = 0 and",
		"zero gravity, one backward and one forward sweep over all columns at once.",
		"  s_Minv out: [NV, NV] inverse mass matrix, row-major",
		"  s_q    in:  [NQ] configuration",
		"A joint whose articulated inertia is not positive definite yields NaN.",
		"The algorithm is grid/algorithms/minv.cuh on this robot's description. Its placement parameter",
		"F_IN_SMEM places the F-region (the column blocks, most of the scratch) only; the per-body state stays",
		"in s_temp.")
	e := &entry{
		name:      "minv",
		doc:       "Inverse joint-space inertia matrix M(q)⁻¹ (analytical algorithm, no factorisation), full and symmetric.",
		outputs:   []buffer{{name: "Minv", size: nv * nv, shape: []int{nv, nv}, doc: "inverse mass matrix"}},
		inputs:    []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:      temp,
		algorithm: "minv",
		shared:    "MinvState",
		// F_IN_SMEM moves the F-region (the column blocks, most of the scratch) and keeps the per-body state
		placement: placement{param: "F_IN_SMEM", split: &scratchSplit{
			bodies: "MinvBodies", region: "Spatial<T>", regionSize: temp - minvBodyElements*len(r.Joints)}},
		limbs: !g.rolled,
	}
	emitTemplateInner(w, e)
	g.add(e)
}

// minvTemp is sizeof(algorithms::MinvState) in elements (checked by a static_assert): per body a joint pose
// (15), the articulated inertia passed to the parent (21), U (6) and D⁻¹ (1), then the F/P column blocks
// as minv_detail lays them out, 6 elements a column. A body with children has a block of NV − v_i − nv_i
// columns; bodies in joint order need one slot per depth (the depth's largest block), bodies level by level
// the largest even level's blocks plus the largest odd level's, the limbs (LimbScope) a slot for each block
// of a body with several children (whose children run on other limbs); the storage is the largest, at least
// one column. A rolled robot runs its bodies level by level in both scopes and always takes the level layout.
func minvTemp(r *model.Robot, rolled bool) int {
	if rolled {
		_, columns := minvLevelLayout(r)
		return minvBodyElements*len(r.Joints) + 6*columns
	}
	var levelTotal, levelMax []int
	for _, level := range r.Levels {
		total, largest := 0, 0
		for _, i := range level {
			n := 0
			if len(r.Subtree[i]) > 1 {
				n = r.NV - r.Joints[i].V - r.Joints[i].Type.NV()
			}
			total += n
			largest = max(largest, n)
		}
		levelTotal = append(levelTotal, total)
		levelMax = append(levelMax, largest)
	}
	stack := 0
	var parity [2]int
	for l := range r.Levels {
		stack += levelMax[l]
		parity[l%2] = max(parity[l%2], levelTotal[l])
	}
	childStart, _ := children(r)
	limbs := 0
	for i, j := range r.Joints {
		if childStart[i+1]-childStart[i] > 1 {
			limbs += r.NV - j.V - j.Type.NV()
		}
	}
	columns := max(stack, parity[0]+parity[1], limbs, 1)
	return minvBodyElements*len(r.Joints) + 6*columns
}

// minvBodyElements is sizeof(algorithms::MinvBodies) per body, in elements.
const minvBodyElements = 43
