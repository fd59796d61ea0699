// The service descriptors of Qdrant's gRPC API, as Qdrant publishes them in @qdrant/js-client-grpc
// (generated from its .proto files: same package, names, field numbers and oneofs). The package
// exports qdrant.proto's file, whose imports are the three service files.
import type { DescService } from '@bufbuild/protobuf';
import { file_qdrant, Qdrant } from '@qdrant/js-client-grpc';
import type { Points as PointsType } from '../../node_modules/@qdrant/js-client-grpc/dist/types/proto/points_service_pb.js';
import type { Collections as CollectionsType } from '../../node_modules/@qdrant/js-client-grpc/dist/types/proto/collections_service_pb.js';
import type { Snapshots as SnapshotsType } from '../../node_modules/@qdrant/js-client-grpc/dist/types/proto/snapshots_service_pb.js';

function serviceNamed(typeName: string): DescService {
  for (const file of file_qdrant.dependencies) {
    const service = file.services.find((candidate) => candidate.typeName === typeName);
    if (service) return service;
  }
  throw new Error(`@qdrant/js-client-grpc has no service ${typeName}`);
}

// Typed as the generated services are, so handlers get typed requests: the package ships their
// declarations but its exports map does not name them, hence the type-only relative imports (no
// runtime effect); the runtime values come from the dependency walk above.
export const Points = serviceNamed('qdrant.Points') as typeof PointsType;
export const Collections = serviceNamed('qdrant.Collections') as typeof CollectionsType;
export const Snapshots = serviceNamed('qdrant.Snapshots') as typeof SnapshotsType;
export { Qdrant };
