// The build scripts' shared step: write a build's files into a scratch directory beside `output`
// (the same depth, so relative paths such as a source map's hold), then rename each into
// `output` and remove what an earlier build left there. A server or a test running beside a
// build never reads a half-written file.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Runs `write(scratch)`, then moves what it wrote into `output`; returns `output`. */
export async function buildInPlace(output, label, write) {
  const scratch = join(dirname(output), `.${label}-build-${process.pid}-${Date.now()}`);
  await mkdir(scratch, { recursive: true });
  try {
    await write(scratch);
    await mkdir(output, { recursive: true });
    const previous = new Set(await readdir(output));
    for (const name of await readdir(scratch)) {
      await rename(join(scratch, name), join(output, name));
      previous.delete(name);
    }
    // Files of an earlier build that this one did not write again (content-hashed chunk names).
    for (const name of previous) await rm(join(output, name), { recursive: true, force: true });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return output;
}
