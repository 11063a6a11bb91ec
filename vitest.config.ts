// Test tiers by file name: *.unit.spec.ts beside the code, test/int/*.int.spec.ts and test/e2e/*.e2e.spec.ts.
import { defineConfig } from "vitest/config"
import { LongestFirst } from "./test/sequence/LongestFirst.ts"

const CLUSTER_FAILOVER = "test/e2e/cluster-failover.e2e.spec.ts"

/**
 * Files at once. The unit, integration and end-to-end tiers share one group (projects sharing a group, by
 * sequence.groupOrder, share its workers; groups run one after another), so no tier waits for the slowest file of the
 * one before it, and the files run longest first (LongestFirst). Most of the long files wait far more than they
 * compute (platform pacing waits for its minute, faults for timeouts: 16 s of CPU in 72 s, 41 s in 126 s), so the
 * group runs more files at once than the machine has cores (MDS_TEST_WORKERS overrides it).
 */
const WORKERS = ((value: string) => {
  const workers = Number(value)
  if (!Number.isInteger(workers) || workers < 1)
    throw new Error(`MDS_TEST_WORKERS must be a whole number of files at once, at least 1; got "${value}"`)
  return workers
})(process.env["MDS_TEST_WORKERS"] ?? "4")

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "shared/src/**/*.unit.spec.ts",
            "services/*/src/**/*.unit.spec.ts",
            "packages/*/src/**/*.unit.spec.ts",
            "test/structure/**/*.unit.spec.ts"
          ],
          testTimeout: 10_000,
          // Pure code, no servers, no module state: the files share a worker's modules instead of importing effect and
          // the domain again for each (the tier alone: 3 s and 5 s of CPU against 21 s and 41 s).
          isolate: false,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 }
        }
      },
      {
        test: {
          // The lifecycle model (test/model/): the service's deciders, reactions and steps over in-memory ports under
          // generated interleavings, checked against the invariants after every step. No servers: one worker's modules.
          name: "model",
          include: ["test/model/**/*.spec.ts"],
          testTimeout: 120_000,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 }
        }
      },
      {
        test: {
          name: "int",
          include: ["test/int/**/*.int.spec.ts", "services/*/test/**/*.int.spec.ts", "packages/*/test/**/*.int.spec.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 }
        }
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.spec.ts"],
          exclude: [CLUSTER_FAILOVER],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 }
        }
      },
      {
        test: {
          name: "e2e-cluster",
          include: [CLUSTER_FAILOVER],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Alone, in a group of its own after the shared one (vitest runs groups one after another): it
          // bounds how fast reads recover after a node dies (10 s), which measures the cluster's failover only when no
          // other whole stack competes for the two cores.
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
