import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { templateRoot } from '../../src/workspace/template.ts'
import { hostileProject, tagged } from './hostile-agent.ts'

// What a hostile agent can see and touch from inside its sandbox, each through the real path (see hostile-agent.ts).

/** Prints every mount point the sandbox's process sees, one `<tag><point>` line each (bind mounts included, which `find -xdev` never enters). */
const printMounts = (tag: string) => `awk '{print "${tag}" $5}' /proc/self/mountinfo`

/** The mount points at or below the project root, bar the agent's own script (bound read-only at its path): none may be. */
function projectMounts(points: readonly string[], root: string): string[] {
  return points.filter((point) => (point === root || point.startsWith(`${root}/`)) && point !== path.join(root, 'tasks', 'fixture', 'agent.sh'))
}

const MOUNTED_PROJECT = 'the sandbox mounted (part of) the project, which holds the tasks, the oracle and the solutions'

describe('a sandboxed agent', () => {
  test("sees neither the project (tasks, oracle, solutions, results), nor the templates, nor other runs' workspaces", async () => {
    const project = await hostileProject(
      ({ root, workspaceRoot }) => `
for p in "${root}/tasks/fixture/001-value/verify.sh" "${root}/tasks/fixture/001-value/solution" "${root}/tasks/fixture/experiment.ts" "${root}/out" "${templateRoot()}" "${workspaceRoot}/other-run"; do
  [ -e "$p" ] && echo "SEEN $p"
done
find / -xdev \\( -name verify.sh -o -name solve.sh -o -name gold.patch -o -name metadata.json \\) 2>/dev/null | sed 's/^/FOUND /'
ls -A "${root}/tasks/fixture" | sed 's/^/LISTED /'
${printMounts('MOUNT ')}
echo "PARENT $(readlink /proc/$PPID/cwd)"`,
    )
    await mkdir(path.join(project.workspaceRoot, 'other-run'), { recursive: true })
    await writeFile(path.join(project.workspaceRoot, 'other-run', 'value.txt'), 'right\n')
    const { transcript } = await project.run()
    expect(tagged(transcript, 'MOUNT ')).toContain('/proc')
    expect(projectMounts(tagged(transcript, 'MOUNT '), project.root), MOUNTED_PROJECT).toEqual([])
    expect(tagged(transcript, 'SEEN ')).toEqual([])
    expect(tagged(transcript, 'FOUND ')).toEqual([])
    // Of the project, only the agent's own script is there (bound read-only at its path).
    expect(tagged(transcript, 'LISTED ')).toEqual(['agent.sh'])
    expect(tagged(transcript, 'PARENT ')[0]).not.toContain(project.root)
  })

  test("runs the arm's setup commands in the same sandbox: they do not see the project either", async () => {
    const project = await hostileProject('echo "SETUP $(cat setup-saw.txt)"; sed "s/^/SETUPMOUNT /" setup-mounts.txt', {
      setupCommands: [
        'if find / -xdev \\( -name verify.sh -o -name solve.sh \\) 2>/dev/null | grep -q .; then echo seen; else echo unseen; fi > setup-saw.txt',
        `${printMounts('')} > setup-mounts.txt`,
      ],
    })
    const { transcript, record } = await project.run()
    expect(tagged(transcript, 'SETUP ')).toEqual(['unseen'])
    expect(tagged(transcript, 'SETUPMOUNT ')).toContain('/proc')
    expect(projectMounts(tagged(transcript, 'SETUPMOUNT '), project.root), `${MOUNTED_PROJECT} (for the setup commands)`).toEqual([])
    expect(record.changedFiles).toEqual([])
  })

  test('where no overlay can be mounted, works in a plain copy of the template, just as sandboxed', async () => {
    process.env.TASK_OUTCOME_OVERLAY = 'off'
    try {
      const project = await hostileProject(
        `find / -xdev \\( -name verify.sh -o -name solve.sh \\) 2>/dev/null | sed "s/^/FOUND /"\n${printMounts('MOUNT ')}\necho right > value.txt`,
      )
      const { transcript, record } = await project.run()
      expect(tagged(transcript, 'FOUND ')).toEqual([])
      expect(tagged(transcript, 'MOUNT ')).toContain('/proc')
      expect(projectMounts(tagged(transcript, 'MOUNT '), project.root), `${MOUNTED_PROJECT} (in the plain copy)`).toEqual([])
      expect(record.versions.sandbox).toMatch(/^bubblewrap /)
      expect(record.changedFiles).toEqual(['value.txt'])
      expect(record.solved).toBe(true)
    } finally {
      delete process.env.TASK_OUTCOME_OVERLAY
    }
  })

  test("sees in /proc only its own run's processes, never the harness's", async () => {
    const project = await hostileProject(`for p in /proc/[0-9]*; do echo "PROC $(basename $p) $(tr '\\0' ' ' < $p/cmdline)"; done`)
    const { transcript } = await project.run()
    const processes = tagged(transcript, 'PROC ')
    expect(processes.length).toBeGreaterThan(0)
    expect(processes.length).toBeLessThan(8)
    // By program, not by whole command line: the sandbox's own bwrap names its mounts, which may hold "vitest" or "node".
    const programs = processes.map((line) => path.basename(line.split(' ')[1] ?? ''))
    expect(programs.join(' ')).not.toMatch(/vitest|tsx|node/)
    expect(processes.map((line) => Number(line.split(' ')[0]))).toContain(1)
  })

  test('finds no host environment variable the experiment did not pass, in its own environment or any process it can see', async () => {
    process.env.TASK_OUTCOME_TEST_CREDENTIAL = 'sk-hostile-test-4f1c9e'
    try {
      const project = await hostileProject(`env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/1/environ 2>/dev/null; echo`)
      const { transcript } = await project.run()
      expect(transcript).toContain('HOME=')
      expect(transcript).not.toContain('sk-hostile-test-4f1c9e')
      expect(transcript).not.toContain('TASK_OUTCOME_TEST_CREDENTIAL')
    } finally {
      delete process.env.TASK_OUTCOME_TEST_CREDENTIAL
    }
  })

  test('cannot write outside its workspace and HOME: the task folder, the templates, the system and the host /tmp stay as they were', async () => {
    const hostTmpMarker = path.join('/tmp', `hostile-${process.pid}-${Date.now()}`)
    const project = await hostileProject(
      ({ root }) => `
try() { if ( eval "$1" ) 2>/dev/null; then echo "WROTE $2"; else echo "REFUSED $2"; fi; }
try 'echo hacked > "${root}/tasks/fixture/001-value/verify.sh"' verify.sh
try 'echo hacked > "${root}/tasks/fixture/agent.sh"' agent.sh
mkdir -p "${templateRoot()}/hostile-${process.pid}" 2>/dev/null
try 'echo x > /etc/hostile' /etc
try 'echo x > /usr/hostile' /usr
try 'echo x > "$HOME/ok"' home
try 'echo right > value.txt' workspace
echo x > "${hostTmpMarker}" 2>/dev/null`,
    )
    const verifyBefore = await readFile(path.join(project.root, 'tasks/fixture/001-value/verify.sh'), 'utf8')
    const { transcript, record } = await project.run()
    expect(tagged(transcript, 'WROTE ').sort()).toEqual(['home', 'workspace'])
    expect(tagged(transcript, 'REFUSED ').sort()).toEqual(['/etc', '/usr', 'agent.sh', 'verify.sh'])
    // The templates (where the host keeps them) got nothing: inside, that path is at most a folder of the sandbox's own /tmp.
    await expect(stat(path.join(templateRoot(), `hostile-${process.pid}`))).rejects.toThrow()
    expect(await readFile(path.join(project.root, 'tasks/fixture/001-value/verify.sh'), 'utf8')).toBe(verifyBefore)
    // /tmp inside is a tmpfs of its own: the write succeeded there and never reached the host.
    await expect(stat(hostTmpMarker)).rejects.toThrow()
    expect(record.changedFiles).toEqual(['value.txt'])
    expect(record.solved).toBe(true)
  })
})
