"""grid_rbd.ik's collision modes against an independent check.

The robots are built with their collision spheres (the roster's ``collision``: ``mage build -collision``).
Every returned configuration is checked in NumPy: Pinocchio places each link frame, this file places the
spheres of metadata.json's ``collision`` on them and computes the signed distances to the obstacles (sphere,
posed box and cylinder distance written out here) and between the spheres of the listed body pairs. For
erd_panda, whose STL meshes are on disk, hpp-fcl also checks the meshes' bounding boxes (from Pinocchio's
geometry model) against the obstacles: the spheres cover those boxes, so a configuration free by the spheres
must be free by the boxes.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pinocchio as pin
import pytest
import yaml

from bench import roster
from grid_rbd import ik
from grid_rbd._artifacts import find_robot

ROBOT = "panda"
FRAME = "panda_link7"
MARGIN = 0.01


def seeded_obstacles(seed: int) -> dict[str, np.ndarray]:
    """Spheres, axis-aligned and posed cuboids and cylinders around the arm, clear of its base column."""
    rng = np.random.default_rng(seed)

    def centres(n):
        out = []
        while len(out) < n:
            c = rng.uniform([-0.7, -0.7, 0.0], [0.7, 0.7, 0.9])
            if np.hypot(c[0], c[1]) > 0.3:
                out.append(c)
        return np.array(out)

    def quats(n):
        q = rng.normal(size=(n, 4))
        return q / np.linalg.norm(q, axis=1, keepdims=True)

    spheres = np.hstack([centres(4), rng.uniform(0.05, 0.12, (4, 1))])
    boxes = np.hstack([centres(3), rng.uniform(0.05, 0.3, (3, 3))])
    posed_boxes = np.hstack([centres(2), rng.uniform(0.05, 0.3, (2, 3)), quats(2)])
    cylinders = np.hstack([centres(2), rng.uniform(0.03, 0.08, (2, 1)), rng.uniform(0.2, 0.6, (2, 1)), quats(2)])
    return {"spheres": spheres,
            "cuboids": np.vstack([np.hstack([boxes, np.tile([0, 0, 0, 1.0], (3, 1))]), posed_boxes]),
            "cylinders": cylinders}


def rotation(q):
    x, y, z, w = np.asarray(q) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def obstacle_distances(c, r, obstacles):
    """Signed distances from spheres (centres c [N, 3], radii r [N]) to every obstacle: [N, num_obstacles]."""
    out = []
    for o in obstacles.get("spheres", []):
        out.append(np.linalg.norm(c - o[:3], axis=1) - o[3] - r)
    for o in obstacles.get("cuboids", []):
        p = (c - o[:3]) @ rotation(o[6:10])  # rows: Rᵀ(c − o)
        q = np.abs(p) - o[3:6] / 2
        out.append(np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0) - r)
    for o in obstacles.get("cylinders", []):
        p = (c - o[:3]) @ rotation(o[5:9])
        d = np.stack([np.hypot(p[:, 0], p[:, 1]) - o[3], np.abs(p[:, 2]) - o[4] / 2], axis=1)
        out.append(np.linalg.norm(np.maximum(d, 0), axis=1) + np.minimum(d.max(axis=1), 0) - r)
    return np.stack(out, axis=1) if out else np.zeros((len(r), 0))


class SphereCheck:
    """The robot's spheres (metadata.json) placed by Pinocchio's frame poses, and their distances."""

    def __init__(self, name):
        meta = json.loads((find_robot(name) / "metadata.json").read_text())
        self.collision = meta["collision"]
        self.model = pin.buildModelFromUrdf(str(roster.urdf_path(name)))
        self.data = self.model.createData()
        spheres = self.collision["spheres"]
        self.frame_ids = [self.model.getFrameId(s["frame"]) for s in spheres]
        self.local = np.array([s["center"] for s in spheres])
        self.radius = np.array([s["radius"] for s in spheres])
        self.body = np.array([s["body"] for s in spheres])

    def centres(self, q):
        pin.framesForwardKinematics(self.model, self.data, q)
        return np.array([self.data.oMf[f].rotation @ c + self.data.oMf[f].translation
                         for f, c in zip(self.frame_ids, self.local)])

    def distances(self, q, obstacles):
        """Every checked pair's signed distance at q: sphere-obstacle, then self pairs."""
        c = self.centres(q)
        ds = [obstacle_distances(c, self.radius, obstacles).ravel()]
        for a, b in self.collision["self_pairs"]:
            ia, ib = np.flatnonzero(self.body == a), np.flatnonzero(self.body == b)
            gap = np.linalg.norm(c[ia, None] - c[None, ib], axis=2) - self.radius[ia, None] - self.radius[None, ib]
            ds.append(gap.ravel())
        return np.concatenate(ds)

    def score(self, q, obstacles, margin=MARGIN):
        d = self.distances(q, obstacles)
        return d.min(), np.maximum(margin - d, 0).sum()


@pytest.fixture(scope="module")
def check():
    return SphereCheck(ROBOT)


@pytest.fixture(scope="module")
def goals():
    for d in roster.shared_dirs():
        path = d.parent / "ik" / "panda_ik_goals.yml"
        if path.is_file():
            raw = yaml.safe_load(path.read_text())["goals"][:30]
            return np.array([g["position"] for g in raw]), np.array([g["quaternion"] for g in raw])
    pytest.fail("panda_ik_goals.yml not found beside the shared robots")


@pytest.fixture(scope="module")
def obstacles():
    return seeded_obstacles(4106)


def solve(goals, obstacles, mode, **kw):
    pos, quat = goals
    return ik.solve(ROBOT, pos, quat, frame=FRAME, num_solutions=4, batch=48, seed=3, collision_free=True,
                    collision_mode=mode, obstacles=obstacles, collision_margin=MARGIN, **kw)


def independent_scores(check, r, obstacles):
    """(distance, penalty) of every returned configuration by the NumPy check; NaN for empty slots."""
    dist = np.full(r.q.shape[:2], np.nan)
    pen = np.full(r.q.shape[:2], np.nan)
    for g, s in zip(*np.nonzero(np.isfinite(r.q[:, :, 0]))):
        dist[g, s], pen[g, s] = check.score(r.q[g, s], obstacles)
    return dist, pen


def ranking_key(r):
    cost = r.position_error**2 + (0.1 * r.orientation_error) ** 2
    return cost + r.collision_penalty**2


def test_hard_returns_only_collision_free_solutions(check, goals, obstacles):
    r = solve(goals, obstacles, "hard")
    dist, pen = independent_scores(check, r, obstacles)
    returned = np.isfinite(r.q[:, :, 0])
    assert np.all(dist[returned] >= -1e-12), np.argwhere(returned & (dist < 0))
    # the solver's scores are the check's
    np.testing.assert_allclose(r.collision_distance[returned], dist[returned], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.collision_penalty[returned], pen[returned], rtol=0, atol=1e-9)
    assert np.all(np.isnan(r.collision_distance[~returned])) and np.all(r.position_error[~returned] == np.inf)
    # the obstacles matter: unfiltered, some of the best configurations collide, and hard returns fewer
    soft = solve(goals, obstacles, "soft", collision_weight=0.0)
    assert np.sum(soft.collision_distance < 0) >= 5
    assert returned.sum() < np.isfinite(soft.q[:, :, 0]).sum()
    assert r.solved()[:, 0].sum() >= 20  # most goals keep a collision-free solution


def test_self_collision_alone(check, goals):
    r = solve(goals, None, "hard")
    dist, _ = independent_scores(check, r, {})
    returned = np.isfinite(r.q[:, :, 0])
    assert np.all(dist[returned] >= -1e-12)
    np.testing.assert_allclose(r.collision_distance[returned], dist[returned], rtol=0, atol=1e-9)


def test_soft_ranks_by_cost_and_penalty_and_drops_nothing(check, goals, obstacles):
    r = solve(goals, obstacles, "soft")
    assert np.all(np.isfinite(r.q))  # nothing dropped: 24 polished restarts for 4 slots
    dist, pen = independent_scores(check, r, obstacles)
    np.testing.assert_allclose(r.collision_distance, dist, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.collision_penalty, pen, rtol=0, atol=1e-9)
    assert np.any(dist < 0), "soft mode does not promise collision freedom; this set should show it"
    # distinct solutions within tolerance come first, in order of the ranking key
    key, ok = ranking_key(r), r.solved()
    for g in range(len(key)):
        k = key[g, ok[g]]
        assert np.all(ok[g, : ok[g].sum()]), f"goal {g}: a solution after a non-solution"
        assert np.all(np.diff(k) >= -1e-15), f"goal {g}: keys {k} not ascending"
    # a weight on the penalty lowers the penalty of the best solution against plain cost order
    plain = solve(goals, obstacles, "soft", collision_weight=0.0)
    both_solved = ok[:, 0] & plain.solved()[:, 0]
    assert np.all(r.collision_penalty[both_solved, 0] <= plain.collision_penalty[both_solved, 0] + 1e-12)
    assert np.sum(r.collision_penalty[both_solved, 0] < plain.collision_penalty[both_solved, 0]) >= 3


def test_both_drops_colliding_and_ranks_by_clearance(check, goals, obstacles):
    r = solve(goals, obstacles, "both")
    hard = solve(goals, obstacles, "hard")
    dist, pen = independent_scores(check, r, obstacles)
    returned = np.isfinite(r.q[:, :, 0])
    assert np.all(dist[returned] >= -1e-12)
    np.testing.assert_allclose(r.collision_penalty[returned], pen[returned], rtol=0, atol=1e-9)
    # the same collision-free candidates as hard, ranked by the key instead of the cost
    np.testing.assert_array_equal(returned, np.isfinite(hard.q[:, :, 0]))
    np.testing.assert_array_equal(r.num_distinct, hard.num_distinct)
    key, ok = ranking_key(r), r.solved()
    for g in range(len(key)):
        assert np.all(np.diff(key[g, ok[g]]) >= -1e-15)
    assert np.all(r.collision_penalty[ok[:, 0], 0] <= hard.collision_penalty[ok[:, 0], 0] + 1e-12)


def test_without_collision_build_is_refused():
    with pytest.raises(ValueError, match="built without its collision spheres.*-collision"):
        ik.solve("iiwa", [0.4, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0], frame="iiwa_link_7", collision_free=True)


def test_rows_of_both_forms_mix(goals):
    """Axis-aligned and posed rows in one list: the short ones get the identity quaternion."""
    short, posed = [0.5, 0.0, 0.5, 0.1, 0.2, 0.3], [-0.5, 0.0, 0.5, 0.1, 0.2, 0.3, 0.0, 0.0, 0.6, 0.8]
    kw = dict(frame=FRAME, num_solutions=2, batch=16, collision_free=True, collision_mode="soft")
    mixed = ik.solve(ROBOT, *goals, obstacles={"cuboids": [short, posed]}, **kw)
    long = ik.solve(ROBOT, *goals, obstacles={"cuboids": [short + [0.0, 0.0, 0.0, 1.0], posed]}, **kw)
    np.testing.assert_array_equal(mixed.collision_distance, long.collision_distance)


def test_unscored_results_have_nan_scores():
    r = ik.solve(ROBOT, [0.4, 0.0, 0.5], [1.0, 0.0, 0.0, 0.0], frame=FRAME, num_solutions=2)
    assert r.collision_mode is None and np.all(np.isnan(r.collision_distance)) and not r.collision_free().any()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(obstacles={"spheres": [[0.5, 0.0, 0.5]]}), r"obstacles\['spheres'\] must have rows \[x, y, z, radius\]"),
        (dict(obstacles={"cuboids": [[0.5, 0, 0.5, 0.1, 0.1, 0.1, 1.0]]}), r"obstacles\['cuboids'\] must have rows"),
        (dict(obstacles={"cylinders": np.zeros((2, 2, 5))}), r"obstacles\['cylinders'\] must have rows"),
        (dict(obstacles={"cuboids": [[0.5, 0, 0.5, 0.1, 0.1, 0.1], [0.5, 0]]}), r"got rows of \[2, 6\] numbers"),
        (dict(obstacles={"spheres": [[0.5, np.nan, 0.5, 0.1]]}), r"obstacles\['spheres'\] row 0 is not finite"),
        (dict(obstacles={"spheres": [[0.5, 0, 0.5, 0.1], [0.5, 0, 0.5, -0.1]]}), "row 1 has a size that is not positive"),
        (dict(obstacles={"cylinders": [[0.5, 0, 0.5, 0.1, 0.0]]}), "row 0 has a size that is not positive"),
        (dict(obstacles={"cuboids": [[0.5, 0, 0.5, 0.1, 0.1, 0.1, 0, 0, 0, 0]]}), "row 0 has a zero quaternion"),
        (dict(obstacles={"boxes": [[0.5, 0, 0.5, 0.1, 0.1, 0.1]]}), r"unknown obstacle kinds \['boxes'\]"),
        (dict(obstacles=[[0.5, 0, 0.5, 0.1]]), "obstacles must be a mapping"),
        (dict(collision_mode="strict"), "collision_mode must be one of 'hard', 'soft', 'both'"),
        (dict(collision_margin=-0.1), "collision_margin must be a non-negative number"),
        (dict(collision_weight=math.inf), "collision_weight must be a non-negative number"),
        (dict(collision_free=False, obstacles={"spheres": [[0.5, 0, 0.5, 0.1]]}), "collision_free is False"),
    ],
)
def test_bad_collision_input(kwargs, match):
    args = dict(frame=FRAME, collision_free=True)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ik.solve(ROBOT, [0.4, 0.0, 0.5], [1.0, 0.0, 0.0, 0.0], **args)


# ---------------------------------------------------------------------------------------------------------
# erd_panda: STL meshes on disk, covered through their bounding boxes; hpp-fcl checks those boxes.

ERD = "erd_panda"


def mesh_boxes(name):
    """Pinocchio's model and collision geometry of a robot, with each geometry's local bounding box."""
    hppfcl = pytest.importorskip("hppfcl")
    urdf = roster.urdf_path(name)
    package_dir = roster.example_robot_data_dir().parents[1]  # holds example-robot-data/
    model, geom = pin.buildModelsFromUrdf(str(urdf), package_dirs=[str(package_dir)],
                                          geometry_types=pin.GeometryType.COLLISION)[:2]
    boxes = []
    for obj in geom.geometryObjects:
        shape = obj.geometry
        shape.computeLocalAABB()
        lo, hi = np.array(shape.aabb_local.min_), np.array(shape.aabb_local.max_)  # meshes load scaled
        boxes.append((obj, hppfcl.Box(*(hi - lo)), (hi + lo) / 2))
    return hppfcl, model, geom, boxes


def fcl_obstacles(hppfcl, obstacles):
    out = []
    for o in obstacles["spheres"]:
        out.append((hppfcl.Sphere(o[3]), pin.SE3(np.eye(3), o[:3])))
    for o in obstacles["cuboids"]:
        out.append((hppfcl.Box(*o[3:6]), pin.SE3(rotation(o[6:10]), o[:3])))
    for o in obstacles["cylinders"]:
        out.append((hppfcl.Cylinder(o[3], o[4]), pin.SE3(rotation(o[5:9]), o[:3])))
    return out


def test_erd_panda_mesh_boxes_are_free_in_hard_mode():
    hppfcl, model, geom, boxes = mesh_boxes(ERD)
    data, gdata = model.createData(), geom.createData()
    check = SphereCheck(ERD)
    assert not check.collision["approximated"], "every erd_panda mesh should be read from disk"
    obstacles = seeded_obstacles(4107)
    fid = model.getFrameId("panda_hand")
    rng = np.random.default_rng(4108)
    pos, quat = [], []
    for _ in range(12):
        pin.framesForwardKinematics(model, data, rng.uniform(model.lowerPositionLimit, model.upperPositionLimit))
        pos.append(data.oMf[fid].translation.copy())
        quat.append(pin.Quaternion(data.oMf[fid].rotation).coeffs().copy())
    r = ik.solve(ERD, np.array(pos), np.array(quat), frame="panda_hand", num_solutions=2, batch=32, seed=5,
                 collision_free=True, obstacles=obstacles)
    returned = np.isfinite(r.q[:, :, 0])
    assert returned.sum() >= 12
    env = fcl_obstacles(hppfcl, obstacles)
    req, res = hppfcl.DistanceRequest(), hppfcl.DistanceResult()
    for g, s in zip(*np.nonzero(returned)):
        q = r.q[g, s]
        assert check.score(q, obstacles)[0] >= -1e-12
        pin.updateGeometryPlacements(model, data, geom, gdata, q)
        for (obj, box, centre), placement in zip(boxes, gdata.oMg):
            box_pose = placement * pin.SE3(np.eye(3), centre)
            for shape, pose in env:
                res.clear()
                d = hppfcl.distance(box, hppfcl.Transform3f(box_pose.rotation, box_pose.translation), shape,
                                    hppfcl.Transform3f(pose.rotation, pose.translation), req, res)
                assert d >= -1e-9, f"goal {g} solution {s}: {obj.name}'s bounding box meets an obstacle ({d})"
