// Parses Prometheus text exposition with the reference parser (Python prometheus_client, pinned in .tools/venv-test).
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { REPO_ROOT } from "./ServiceStack.ts"

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface MetricFamily {
  readonly name: string
  readonly type: string
  readonly help: string
  readonly samples: ReadonlyArray<Sample>
}

const PARSER = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = [{"name": f.name, "type": f.type, "help": f.documentation,
             "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
            for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(families, allow_nan=True))
`

export const testPython = () => process.env["MDS_TEST_PYTHON"] ?? join(REPO_ROOT, ".tools", "venv-test", "bin", "python")

/** Throws with the parser's message when the text is not valid exposition format. */
export const parsePrometheusText = (text: string): ReadonlyArray<MetricFamily> => {
  const result = spawnSync(testPython(), ["-c", PARSER], { input: text, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`prometheus_client could not parse the metrics: ${result.stderr}`)
  return JSON.parse(result.stdout.replace(/\bNaN\b/g, "null").replace(/-?Infinity\b/g, "null"))
}

export const family = (families: ReadonlyArray<MetricFamily>, name: string): MetricFamily => {
  const found = families.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no metric family ${name}; have ${families.map((f) => f.name).join(", ")}`)
  return found
}
