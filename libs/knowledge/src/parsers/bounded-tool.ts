/**
 * How the document tools (pdftoppm, tesseract, pdftotext) are started: through a small `sh`
 * wrapper that bounds them by itself, so that no tool outlives the replica that started it.
 *
 * - `ulimit -v` caps the tool's address space (the tools read untrusted PDFs).
 * - coreutils `timeout` runs the tool in a process group of its own and kills it at the time limit
 *   (a little after the caller's own limit, which normally fires first): a tool whose replica was
 *   killed with SIGKILL still ends by its own deadline.
 * - A watchdog kills that process group within a fraction of a second once the replica (the
 *   process that started the wrapper) or the wrapper itself is gone, so an orphan does not even
 *   wait for the deadline. Node has no PR_SET_PDEATHSIG; this is its portable equivalent.
 *
 * Standard input, output and error are the tool's. See docs/decisions/document-tool-processes.md.
 */

const WRAPPER = [
  'ulimit -v "$1" || exit 125',
  'secs=$2; owner=$3; shift 3',
  'exec 3<&0',
  'timeout -s KILL "$secs" "$@" <&3 3<&- &',
  'tool=$!',
  'exec 3<&-',
  // $$ is the wrapper's own pid, also inside the watchdog's subshell
  '(while kill -0 "$owner" && kill -0 $$ && kill -0 "$tool"; do sleep 0.2; done 2>/dev/null;' +
    ' kill -KILL -"$tool") </dev/null >/dev/null 2>&1 &',
  'watchdog=$!',
  'wait "$tool"; status=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** Seconds the tool's own time limit adds to the caller's: the caller's kill normally comes first. */
const GRACE_S = 2;

/**
 * `execFile('/bin/sh', boundedTool(…))` runs `file args…` capped at `memoryMb` of address space and
 * killed at `timeoutMs` (plus a grace) by itself, and killed at once when this process or the
 * wrapper dies. Kill the wrapper (the caller's timeout) and the watchdog kills the tool.
 */
export function boundedTool(file: string, args: readonly string[], memoryMb: number, timeoutMs: number): string[] {
  const secs = Math.ceil(timeoutMs / 1000) + GRACE_S;
  return ['-c', WRAPPER, 'tool', String(memoryMb * 1024), String(secs), String(process.pid), file, ...args];
}
