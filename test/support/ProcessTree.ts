// What /proc shows of processes: a process's descendants, a process group's members, a process's namespaces and environment.
import { readdir, readFile, readlink } from "node:fs/promises"
import { join } from "node:path"

export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  /** The short name (yt-dlp sets its own: "yt-dlp"). */
  readonly comm: string
}

const infoOf = async (pid: number): Promise<ProcessInfo | null> => {
  const stat = await readFile(join("/proc", String(pid), "stat"), "utf8").catch(() => null)
  if (stat === null) return null
  const open = stat.indexOf("(")
  const close = stat.lastIndexOf(")")
  // Fields after the name: state, ppid, pgrp, ...
  const fields = stat.slice(close + 2).split(" ")
  // A zombie has ended: it is only waiting to be reaped.
  if (fields[0] === "Z") return null
  return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), comm: stat.slice(open + 1, close) }
}

/** Every live process (zombies left out). */
export const processes = async (): Promise<ReadonlyArray<ProcessInfo>> => {
  const found: Array<ProcessInfo> = []
  for (const name of await readdir("/proc")) {
    if (!/^[0-9]+$/.test(name)) continue
    const info = await infoOf(Number(name))
    if (info !== null) found.push(info)
  }
  return found
}

/** The live descendants of `root`, nearest first. */
export const descendantsOf = async (root: number): Promise<ReadonlyArray<ProcessInfo>> => {
  const all = await processes()
  const found: Array<ProcessInfo> = []
  let parents = new Set([root])
  while (parents.size > 0) {
    const children = all.filter((p) => parents.has(p.ppid))
    found.push(...children)
    parents = new Set(children.map((p) => p.pid))
  }
  return found
}

/** The live members of a process group. */
export const groupMembers = async (pgid: number): Promise<ReadonlyArray<number>> =>
  (await processes()).filter((p) => p.pgid === pgid).map((p) => p.pid)

/** The namespace a process is in, e.g. "net:[4026531840]" for kind "net". */
export const namespaceOf = (pid: number | "self", kind: "net" | "pid" | "user") =>
  readlink(join("/proc", String(pid), "ns", kind)).catch(() => null)

/** The environment a process was started with. */
export const environmentOf = async (pid: number): Promise<Record<string, string>> => {
  const raw = await readFile(join("/proc", String(pid), "environ"), "utf8").catch(() => "")
  const env: Record<string, string> = {}
  for (const entry of raw.split("\0")) {
    const at = entry.indexOf("=")
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1)
  }
  return env
}

export const isAlive = async (pid: number) => (await infoOf(pid)) !== null
