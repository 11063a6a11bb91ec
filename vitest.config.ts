// Test tiers by file name: *.unit.spec.ts beside the code, test/int/*.int.spec.ts and test/e2e/*.e2e.spec.ts.
import { defineConfig } from "vitest/config"

const CLUSTER_FAILOVER = "test/e2e/cluster-failover.e2e.spec.ts"

/**
 * Files at once per tier. Vitest's default on two cores is one (cores - 1), and every project left at that default
 * runs in one sequential group after all the others: the unit and integration tiers then ran one file at a time.
 * Projects sharing a group (sequence.groupOrder) must share maxWorkers; groups run one after another.
 */
const UNIT_AND_INT_WORKERS = 2
const E2E_WORKERS = 2

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["shared/src/**/*.unit.spec.ts", "services/*/src/**/*.unit.spec.ts", "packages/*/src/**/*.unit.spec.ts"],
          testTimeout: 10_000,
          maxWorkers: UNIT_AND_INT_WORKERS,
          sequence: { groupOrder: 0 }
        }
      },
      {
        test: {
          name: "int",
          include: ["test/int/**/*.int.spec.ts", "services/*/test/**/*.int.spec.ts", "packages/*/test/**/*.int.spec.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two at once, as many as the cores: three at once, on a machine already at load 16, pushed CPU-bound files
          // (the CLI's processes, yt-dlp downloads) past their 60 s timeout.
          maxWorkers: UNIT_AND_INT_WORKERS,
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
          // The end-to-end suites each start a whole stack; two at once is what two cores can carry.
          maxWorkers: E2E_WORKERS,
          sequence: { groupOrder: 1 }
        }
      },
      {
        test: {
          name: "e2e-cluster",
          include: [CLUSTER_FAILOVER],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Alone, in a group of its own after the other end-to-end suites (vitest runs groups one after another): it
          // bounds how fast reads recover after a node dies (10 s), which measures the cluster's failover only when no
          // other whole stack competes for the two cores.
          sequence: { groupOrder: 2 }
        }
      }
    ]
  }
})
