// The command line on hostile file systems and hostile text: inputs reached through links, links that
// leave the output tree, leftovers of killed runs, control characters in names, formula cells, absurd
// option values and results that overflow.
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, rotsig, rotsigAsync, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const SAMPLE = join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');

/** `d/x.bvh` (a copy of the walk) and `lnk -> d`. */
function linkedInput() {
  const dir = tempDir();
  mkdirSync(join(dir, 'd'));
  copyFileSync(SAMPLE, join(dir, 'd', 'x.bvh'));
  symlinkSync('d', join(dir, 'lnk'));
  return { dir, input: join(dir, 'd', 'x.bvh'), original: readFileSync(SAMPLE) };
}

/** A two-joint BVH with the given root name, frame time and OFFSET of the child. */
function bvh(options: { root?: string; frameTime?: string; offset?: string; channel?: string } = {}): string {
  return [
    'HIERARCHY',
    `ROOT ${options.root ?? 'Hips'}`,
    '{',
    '  OFFSET 0 0 0',
    `  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation ${options.channel ?? 'Yrotation'}`,
    '  JOINT Spine',
    '  {',
    `    OFFSET ${options.offset ?? '0 10 0'}`,
    '    CHANNELS 3 Zrotation Xrotation Yrotation',
    '    End Site',
    '    {',
    '      OFFSET 0 10 0',
    '    }',
    '  }',
    '}',
    'MOTION',
    'Frames: 3',
    `Frame Time: ${options.frameTime ?? '0.0333333'}`,
    '0 90 0 0 0 0 0 0 0',
    '-1 90 -2.5 10 -5 0 5 0 0',
    '2 90 0 20 -10 0 10 0 0',
    '',
  ].join('\n');
}

/** True when `text` holds a character a terminal would act on (newline, the line separator, excepted). */
function hasControl(text: string): boolean {
  return [...text].some((ch) => {
    const c = ch.charCodeAt(0);
    return (
      (c < 0x20 && c !== 0x0a) ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069)
    );
  });
}

function expectUsageError(args: string[], pattern: RegExp, cwd?: string) {
  const r = rotsig(args, cwd ? { cwd } : {});
  expect(r.code, args.join(' ')).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(hasControl(r.stderr)).toBe(false);
}

describe('rotsig never overwrites an input without --in-place, however the output path reaches it', () => {
  it.each([
    ['unroll d/x.bvh -o lnk/x.bvh', ['unroll', 'd/x.bvh', '-o', 'lnk/x.bvh']],
    ['unroll lnk/x.bvh -o d/x.bvh', ['unroll', 'lnk/x.bvh', '-o', 'd/x.bvh']],
    ['process d -o lnk --unroll', ['process', 'd', '-o', 'lnk', '--unroll']],
    ['smooth lnk -o d', ['smooth', 'lnk', '-o', 'd', '--sigma', '1f']],
    [
      'export d/x.bvh -o lnk/../d/x.bvh --format csv',
      ['export', 'd/x.bvh', '-o', 'lnk/../d/x.bvh', '--format', 'csv'],
    ],
  ])('rotsig %s is a usage error (exit 2) and the input is unchanged', (_name, args) => {
    const { dir, input, original } = linkedInput();
    const r = rotsig(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /is an input( \(the same file as input .*, reached through a symbolic link\))?; pass --in-place/,
    );
    expect(readFileSync(input).equals(original)).toBe(true);
    expect(readdirSync(join(dir, 'd'))).toEqual(['x.bvh']);
  });

  it('a hard link to the input is the input: exit 2, unchanged', () => {
    const { dir, input, original } = linkedInput();
    linkSync(input, join(dir, 'hard.bvh'));
    const r = rotsig(['unroll', 'd/x.bvh', '-o', 'hard.bvh'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hard\.bvh is an input \(the same file as input d\/x\.bvh, a hard link\)/);
    expect(readFileSync(input).equals(original)).toBe(true);
  });

  it('--in-place through a directory link rewrites the input; on a file link it keeps the link', () => {
    const { dir, input, original } = linkedInput();
    symlinkSync(join('d', 'x.bvh'), join(dir, 'alias.bvh'));
    const r = rotsig(['unroll', 'alias.bvh', '--in-place'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(lstatSync(join(dir, 'alias.bvh')).isSymbolicLink()).toBe(true);
    expect(readFileSync(input).equals(original)).toBe(false); // unrolled: the walk has sign flips
    expect(rotsig(['info', 'lnk/x.bvh'], { cwd: dir }).stdout).toMatch(/flips {6}none/);
  });
});

describe('rotsig and symbolic links in directory trees', () => {
  it('an output below -o is never written through a link that leaves the -o tree (exit 2)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in', 's'), { recursive: true });
    copyFileSync(SAMPLE, join(dir, 'in', 's', 'x.bvh'));
    mkdirSync(join(dir, 'out'));
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'out', 's'));
    const r = rotsig(['unroll', 'in', '-o', 'out'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /out\/s\/x\.bvh would be written to .*elsewhere\/x\.bvh, outside the output directory out/,
    );
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
  });

  it('a tree of symbolic links is followed: its captures are processed, broken links reported', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'links'));
    symlinkSync(SAMPLE, join(dir, 'links', 'walk.bvh'));
    symlinkSync(join(ROOT, 'samples'), join(dir, 'links', 'samples'));
    symlinkSync(join(dir, 'gone.bvh'), join(dir, 'links', 'broken.bvh'));
    const r = rotsig(['info', 'links', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const files = JSON.parse(r.stdout).map((x: { file: string }) => x.file);
    // Sorted: links/samples comes before links/walk.bvh, so the walk is found there first; the default
    // glob takes the bundled glTF fox too.
    expect(files).toEqual([
      'links/samples/01_01.bvh',
      'links/samples/AV_8Walk_Meredith_HVHA_Rep1.bvh',
      'links/samples/Fox.glb',
    ]);
    expect(r.stderr).toContain('warning: links/broken.bvh: skipped: broken symbolic link');
    expect(r.stderr).toContain(
      'warning: links/walk.bvh: skipped: same file as links/samples/AV_8Walk_Meredith_HVHA_Rep1.bvh; taken once',
    );
  });

  it('a tree of only broken links says what it skipped instead of a bare "no input files matched"', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'links'));
    symlinkSync(join(dir, 'a.bvh'), join(dir, 'links', 'a.bvh'));
    const r = rotsig(['info', 'links'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'warning: links/a.bvh: skipped: broken symbolic link (its target does not exist)\n' +
        'error: no input files matched (default glob **/*.{bvh,gltf,glb,npz}) (1 skipped, listed above)\n',
    );
  });

  it('a directory link loop ends the walk with a report', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    copyFileSync(SAMPLE, join(dir, 'in', 'walk.bvh'));
    symlinkSync('..', join(dir, 'in', 'up'));
    const r = rotsig(['info', 'in', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).file).toBe('in/walk.bvh');
    expect(r.stderr).toMatch(/warning: in\/up\/in: skipped: symbolic link loop: leads back to in/);
  });
});

/** The CMU sample with its motion repeated 10 times (~20 MB): its positions CSV takes a while to write. */
function largeInput(dir: string): string {
  const text = readFileSync(join(ROOT, 'samples', '01_01.bvh'), 'utf8');
  const lines = text.split('\n');
  const motion = lines.findIndex((l) => /^MOTION/.test(l));
  const rows = lines.slice(motion + 3).filter((l) => l.trim() !== '');
  const out = [...lines.slice(0, motion + 1), `Frames: ${rows.length * 10}`, lines[motion + 2]];
  for (let i = 0; i < 10; i++) out.push(...rows);
  const path = join(dir, 'big.bvh');
  writeFileSync(path, `${out.join('\n')}\n`);
  return path;
}

describe('rotsig removes the temporary files of killed runs', () => {
  it('each run removes the leftover of the SIGKILLed run before it and says so; a live run keeps its own', async () => {
    const dir = tempDir();
    const input = largeInput(dir);
    mkdirSync(join(dir, 'out'));
    const tmps = () => readdirSync(join(dir, 'out')).filter((n) => n.endsWith('.tmp'));
    const killed: { pid: number; stderr: string }[] = [];
    for (let attempt = 0; attempt < 10 && killed.length < 3; attempt++) {
      const child = rotsigAsync(
        ['export', input, '--as', 'positions', '-o', 'out/big.csv', '--jobs', '1'],
        dir,
      );
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      let done = false;
      const exited = new Promise((resolve) =>
        child.on('close', () => {
          done = true;
          resolve(undefined);
        }),
      );
      let hit = false;
      while (!done) {
        if (tmps().some((n) => n.includes(`.rotsig-${child.pid}-`))) {
          child.kill('SIGKILL');
          hit = true;
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      await exited;
      if (hit) {
        killed.push({ pid: child.pid!, stderr });
        // Only the last killed run's file is left: each run removed the one before.
        expect(tmps()).toEqual([
          expect.stringMatching(
            new RegExp(`^\\.big\\.csv\\.rotsig-${child.pid}-\\d+-\\d+-[0-9a-f]{8}\\.tmp$`),
          ),
        ]);
      }
    }
    expect(killed.length).toBeGreaterThan(1);
    for (let i = 1; i < killed.length; i++)
      expect(killed[i].stderr).toMatch(
        /^note: removed 1 temporary file left in out by interrupted rotsig run \(process \d+\)\n/,
      );
    // A temporary file of a process that still runs (this test) is another run's work in progress.
    const live = `.other.csv.rotsig-${process.pid}-0-1.tmp`;
    writeFileSync(join(dir, 'out', live), 'in progress');
    const r = rotsig(['export', SAMPLE, '--as', 'quat', '-o', 'out/walk.csv'], { cwd: dir });
    expect(r.code).toBe(0);
    const last = killed[killed.length - 1].pid;
    expect(r.stderr).toMatch(
      new RegExp(
        `^note: removed 1 temporary file left in out by interrupted rotsig run \\(process ${last}\\)\\n`,
      ),
    );
    expect(tmps()).toEqual([live]);
    // Nothing left to say the next time.
    expect(rotsig(['export', SAMPLE, '-o', 'out/walk.csv'], { cwd: dir }).stderr).not.toMatch(/removed/);
  }, 90_000);
});

describe('rotsig prints no control character from file names or file text', () => {
  const NAME = 'Hi\x1b]0;pwned\x07ps\u009b2J\u202eab';

  it('info escapes joint names in its report and keeps them exact in --json', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'evil.bvh'), bvh({ root: NAME }));
    const r = rotsig(['info', 'evil.bvh'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(hasControl(r.stdout)).toBe(false);
    expect(r.stdout).toContain('root Hi\\x1b]0;pwned\\x07ps\\x9b2J\\u202eab: Xposition');
    const json = rotsig(['info', 'evil.bvh', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).perJoint[0].name).toBe(NAME);
  });

  it('a parse error quoting file text is escaped', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.bvh'), bvh({ channel: 'W\x1b[31mrotation' }));
    const r = rotsig(['unroll', 'bad.bvh', '-o', 'out.bvh'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(hasControl(r.stderr)).toBe(false);
    expect(r.stderr).toMatch(/^error: bad\.bvh:5:\d+: .*W\\x1b\[31mrotation/);
  });

  it('a file name with a newline and an escape stays on one message line', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'a\nb\x1b[2J.bvh'), 'not a bvh file');
    copyFileSync(SAMPLE, join(dir, 'in', 'walk.bvh'));
    const r = rotsig(['unroll', 'in', '-o', 'out', '--verbose', '--jobs', '1'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(hasControl(r.stderr)).toBe(false);
    // notes (a Frame Time read as its standard rate) are not part of what this test checks
    const lines = r.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !l.startsWith('note: '));
    expect(lines[0]).toMatch(/^error: in\/a\\nb\\x1b\[2J\.bvh(:\d+:\d+)?: /);
    expect(lines[1]).toMatch(/^in\/walk\.bvh -> out\/walk\.bvh: 1064 frames/);
    expect(lines).toHaveLength(3);
  });

  it('a usage error quoting an argument is escaped', () => {
    expectUsageError(['smooth', SAMPLE, '-o', 'x.bvh', '--space', '\x1b[31mred'], /got '\\x1b\[31mred'/);
    expectUsageError(['\x1b]0;title\x07'], /unknown command '\\x1b\]0;title\\x07'/);
  });
});

describe('rotsig CSV outputs are safe to open in a spreadsheet', () => {
  it('a joint name that is a formula becomes a text cell; negative numbers stay numbers', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f.bvh'), bvh({ root: '=HYPERLINK("http://x")' }));
    const r = rotsig(['export', 'f.bvh', '-o', 'f.csv', '--as', 'positions'], { cwd: dir });
    expect(r.code).toBe(0);
    const [header, first, second] = readFileSync(join(dir, 'f.csv'), 'utf8').split('\n');
    expect(header.split(',').slice(0, 3)).toEqual(['frame', 'time', `"'=HYPERLINK(""http://x"").x"`]);
    expect(first.split(',').slice(2, 5)).toEqual(['0', '90', '0']);
    expect(second.split(',').slice(2, 5)).toEqual(['-1', '90', '-2.5']);
  });
});

describe('rotsig option values out of any sensible range are usage errors (exit 2)', () => {
  const bvhArgs = [SAMPLE, '-o', 'x.bvh'];
  it.each([
    [['smooth', ...bvhArgs, '--sigma', '1e9f'], /--sigma must be at most 10000 frames, got 1e9/],
    [['smooth', ...bvhArgs, '--sigma', '1e9s'], /--sigma must be at most 100 s, got 1e9/],
    [
      ['smooth', ...bvhArgs, '--sigma', '2'],
      /--sigma is in seconds; '2' would be 2 s of smoothing: write 2f for 2 frames or 2s/,
    ],
    [['smooth', ...bvhArgs, '--sigma', '1e-300f'], /--sigma must be at least 0.001 frames/],
    [['smooth', ...bvhArgs, '--sigma', '1e-300'], /--sigma must be at least 0.000001 s/],
    [['smooth', ...bvhArgs, '--sigma', ''], /--sigma must be a number, got ''/],
    [['smooth', ...bvhArgs, '--sigma', '0x10'], /--sigma must be a number, got '0x10'/],
    [['smooth', ...bvhArgs, '--sigma', 'Infinity'], /--sigma must be a number/],
    [['smooth', ...bvhArgs, '--sigma', '1e999'], /--sigma must be a number/],
    [['smooth', ...bvhArgs, '--kernel', 'unsharp', '--amount', '1e9'], /--amount must be at most 1000/],
    [['smooth', ...bvhArgs, '--kernel', 'unsharp', '--amount', '-1'], /--amount must not be negative/],
    [['smooth', ...bvhArgs, '--joints', ''], /--joints needs joint names/],
    [['smooth', ...bvhArgs, '--amount', '0.5'], /--amount applies to --kernel unsharp, not gaussian/],
    [
      ['velocity', SAMPLE, '-o', 'v.csv', '--sigma', '1e9'],
      /--sigma applies to --kernel gaussian or unsharp, not tent/,
    ],
    [
      ['velocity', SAMPLE, '-o', 'v.csv', '--kernel', 'gaussian', '--sigma', '1e9f'],
      /--sigma must be at most 10000/,
    ],
    [['smooth', ...bvhArgs, '--joints', ', ,'], /--joints needs joint names/],
    [['resample', ...bvhArgs, '--rate', '1e9'], /--rate must be at most 100000 Hz/],
    [['resample', ...bvhArgs, '--rate', '1e-9'], /--rate must be at least 0.001 Hz/],
    [['process', SAMPLE, '-o', 'x/', '--resample', '1e9'], /--resample must be at most 100000 Hz/],
    [['process', SAMPLE, '-o', 'x/', '--smooth', 'gaussian:1e9f'], /--smooth sigma must be at most 10000/],
    [['process', SAMPLE, '-o', 'x/', '--smooth', 'gaussian:'], /--smooth sigma must be a number, got ''/],
    [['process', SAMPLE, '-o', 'x/', '--smooth', 'tent:3'], /--smooth must look like/],
    [['process', SAMPLE, '-o', 'x/', '--smooth', 'toString:2'], /--smooth must look like/],
    [['process', SAMPLE, '-o', 'x/', '--unroll', '--kernel', ''], /--kernel is a resample option/],
    [
      ['process', SAMPLE, '-o', 'x/', '--smooth', 'tent', '--duration', 'x'],
      /--duration is a resample option/,
    ],
    [
      ['process', SAMPLE, '-o', 'x/', '--unroll', '--space', 'log'],
      /--space applies to --smooth and --resample/,
    ],
    [['resample', ...bvhArgs, '--rate', '30', '--playback', 'linear'], /give --optimal with it/],
    [['unroll', ...bvhArgs, '--jobs', '100000'], /--jobs must be a whole number from 1 to 256/],
    [['unroll', ...bvhArgs, '--jobs', '1.5'], /--jobs must be a whole number/],
    [['unroll', ...bvhArgs, '--jobs', ''], /--jobs must be a whole number/],
    [['unroll', ...bvhArgs, '--precision', ''], /--precision must be a whole number from 0 to 15, got ''/],
    [['spectrum', SAMPLE, '--share', ''], /--share must be a number/],
    [
      ['info', 'samples', '--glob', '**/*.{bvh'],
      /--glob '\*\*\/\*\.\{bvh' has a '\{' without its closing '\}'/,
    ],
    [['info', 'samples', '--glob', ''], /--glob needs a pattern/],
    [['info', 'samples', '--glob', '/abs/*.bvh'], /relative to each directory/],
    [['info', ''], /an input argument is empty/],
    [['unroll', SAMPLE, '-o', ''], /-o\/--output needs a value/],
  ] as [string[], RegExp][])('rotsig %j', (args, pattern) => {
    expectUsageError(args, pattern);
  });
});

describe('rotsig never writes or prints a non-finite number as success', () => {
  it.each([
    ['velocity', ['velocity', 'tiny.bvh', '-o', 'out.csv'], 'out.csv'],
    ['export', ['export', 'tiny.bvh', '-o', 'out.npy'], 'out.npy'],
    ['export json', ['export', 'tiny.bvh', '-o', 'out.json'], 'out.json'],
  ])(
    'Frame Time: 1e-310 (a rate of Infinity): %s fails the file (exit 1), writes nothing',
    (_n, args, out) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'tiny.bvh'), bvh({ frameTime: '1e-310' }));
      const r = rotsig(args, { cwd: dir });
      expect(r.code).toBe(1);
      // the reader refuses the frame time itself, with its line and column
      expect(r.stderr).toMatch(/^error: tiny\.bvh:(\d+:\d+:)? .*(Infinity|rate)/);
      expect(existsSync(join(dir, out))).toBe(false);
    },
  );

  it('Frame Time: 1e-310: info fails the file rather than print a rate of Infinity', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tiny.bvh'), bvh({ frameTime: '1e-310' }));
    const r = rotsig(['info', 'tiny.bvh'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/Infinity|NaN/);
    const json = rotsig(['info', 'tiny.bvh', '--json'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(json.stdout).not.toMatch(/Infinity|NaN|null/);
  });

  it('OFFSETs of 1.79e308 whose positions overflow: export --as positions fails (exit 1), writes nothing', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'far.bvh'),
      bvh({ offset: '0 1.79e308 0' }).replace('0 90 0 0 0 0', '0 1.79e308 0 0 0 0'),
    );
    const r = rotsig(['export', 'far.bvh', '-o', 'p.csv', '--as', 'positions'], { cwd: dir });
    expect(r.code).toBe(1);
    // forward kinematics refuses the overflow, naming frame and joint
    expect(r.stderr).toMatch(/error: far\.bvh: .*Infinity at frame 0, (Spine\.y|joint 1)/);
    expect(existsSync(join(dir, 'p.csv'))).toBe(false);
  });
});
