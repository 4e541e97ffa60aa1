import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

// dependency-cruiser ships as ES modules only; this suite is CommonJS, so it is loaded with import().
describe('import graph of src/ (.dependency-cruiser.cjs)', function () {
  // One cruise of the TypeScript sources takes a second or two; a busy machine may take longer.
  this.timeout(60_000);

  it('has no import circles, nothing below the routes imports src/http/ or src/surfaces/, and every layer rule holds', async () => {
    const { cruise } = await import('dependency-cruiser');
    const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
    const { default: extractTSConfig } = await import('dependency-cruiser/config-utl/extract-ts-config');
    const options = await extractDepcruiseOptions(resolve(ROOT, '.dependency-cruiser.cjs'));
    const result = await cruise(
      ['src'],
      { ...options, baseDir: ROOT, outputType: 'err' },
      undefined,
      { tsConfig: extractTSConfig(resolve(ROOT, 'tsconfig.json')) },
    );
    const { output } = result;
    assert.equal(typeof output, 'string');
    const cruised = (output as string).match(/(\d+) modules/);
    // Guards against a configuration that quietly cruises nothing and so finds nothing.
    assert.ok(cruised && Number(cruised[1]) > 100, `expected to cruise src/, got: ${output as string}`);
    assert.equal(result.exitCode, 0, output as string);
  });
});
