// Builds the index a definition describes.
import { textAnalyserOptionsFromParams } from '../../text/analysis-params.js';
import type { TextIndexOptions } from '../tokenize.js';
import { BoolIndex } from './bool.js';
import { DatetimeIndex } from './datetime.js';
import { GeoIndex } from './geo.js';
import { KeywordIndex } from './keyword.js';
import { NumericIndex } from './numeric.js';
import type { IndexDefinition } from './schema.js';
import { TextIndex } from './text.js';
import type { PayloadIndex } from './types.js';

export function textOptionsOf(definition: IndexDefinition): TextIndexOptions {
  return textAnalyserOptionsFromParams(definition.params ?? {});
}

export function createPayloadIndex(definition: IndexDefinition): PayloadIndex {
  const params = definition.params ?? {};
  switch (definition.type) {
    case 'keyword':
      return new KeywordIndex('keyword');
    case 'uuid':
      return new KeywordIndex('uuid');
    case 'integer':
      return new NumericIndex('integer', { lookup: params.lookup !== false, range: params.range !== false });
    case 'float':
      return new NumericIndex('float', { lookup: false, range: true });
    case 'bool':
      return new BoolIndex();
    case 'datetime':
      return new DatetimeIndex();
    case 'text':
      return new TextIndex(textOptionsOf(definition));
    case 'geo':
      return new GeoIndex();
  }
}
