// hnswlib itself, compiled with -O3 -march=native from the header bundled in the hnswlib-node
// package, as one peer of `npm run bench:ann` (bench/ann/external.ts compiles it into .cache/).
// The same protocol as bench/ann/python/worker.py: arguments give the dataset's shape and the
// directory holding base.f32 / queries.f32; commands arrive one per line on stdin and each is
// answered by one JSON line on stdout:
//
//   build <threads>           -> {"ok":true,"buildMs":..,"rssGrowthBytes":..,"indexBytes":..}
//   search <ef> <output.i32>  -> {"ok":true,"searchMs":..}   (K int32 ids per query, -1 padded)
//   filter <column|none>      -> {"ok":true,"allowed":..}  (a column of --filters; searches
//                                then pass hnswlib a filter functor reading it)
//   overhead                  -> {"ok":true,"emptyLoopMs":0}  (no interpreter loop here)
//   close                     -> {"ok":true}, then exit
//
// Cosine is inner product on unit vectors, as hnswlib's own bindings do it.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

#include "hnswlib.h"

namespace {

struct Options {
  std::string directory;
  std::string distance;
  size_t dimension = 0;
  size_t count = 0;
  size_t queryCount = 0;
  size_t m = 16;
  size_t efConstruct = 128;
  size_t k = 10;
  /** Optional: `filterColumns` columns of `count` bytes each (1 = allowed), column after column. */
  std::string filters;
  size_t filterColumns = 0;
};

/** hnswlib's filter hook: a point passes when its byte in the chosen column is 1. */
class ColumnFilter : public hnswlib::BaseFilterFunctor {
 public:
  explicit ColumnFilter(const uint8_t* column) : column_(column) {}
  bool operator()(hnswlib::labeltype label) override { return column_[label] != 0; }

 private:
  const uint8_t* column_;
};

long residentBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  long size = 0;
  long resident = 0;
  if (std::fscanf(statm, "%ld %ld", &size, &resident) != 2) resident = 0;
  std::fclose(statm);
  return resident * sysconf(_SC_PAGESIZE);
}

std::vector<float> readRows(const std::string& path, size_t rows, size_t dimension, bool normalize) {
  std::vector<float> data(rows * dimension);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr || std::fread(data.data(), sizeof(float), data.size(), file) != data.size()) {
    std::fprintf(stderr, "hnswlib_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(file);
  if (normalize) {
    for (size_t row = 0; row < rows; row += 1) {
      float* vector = data.data() + row * dimension;
      double norm = 0;
      for (size_t column = 0; column < dimension; column += 1) norm += double(vector[column]) * vector[column];
      const float scale = norm > 0 ? float(1.0 / std::sqrt(norm)) : 1.0f;
      for (size_t column = 0; column < dimension; column += 1) vector[column] *= scale;
    }
  }
  return data;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void reply(const std::string& json) {
  std::cout << json << '\n' << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int position = 1; position + 1 < argc; position += 2) {
    const std::string name = argv[position];
    const std::string value = argv[position + 1];
    if (name == "--directory") options.directory = value;
    else if (name == "--distance") options.distance = value;
    else if (name == "--dimension") options.dimension = std::stoul(value);
    else if (name == "--count") options.count = std::stoul(value);
    else if (name == "--query-count") options.queryCount = std::stoul(value);
    else if (name == "--m") options.m = std::stoul(value);
    else if (name == "--ef-construct") options.efConstruct = std::stoul(value);
    else if (name == "--k") options.k = std::stoul(value);
    else if (name == "--filters") options.filters = value;
    else if (name == "--filter-columns") options.filterColumns = std::stoul(value);
  }
  const bool cosine = options.distance == "Cosine";
  const std::vector<float> base = readRows(options.directory + "/base.f32", options.count, options.dimension, cosine);
  const std::vector<float> queries = readRows(options.directory + "/queries.f32", options.queryCount, options.dimension, cosine);
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  if (cosine) space = std::make_unique<hnswlib::InnerProductSpace>(options.dimension);
  else space = std::make_unique<hnswlib::L2Space>(options.dimension);
  std::vector<uint8_t> filterBytes(options.filters.empty() ? 0 : options.count * options.filterColumns);
  if (!options.filters.empty()) {
    std::FILE* file = std::fopen(options.filters.c_str(), "rb");
    if (file == nullptr || std::fread(filterBytes.data(), 1, filterBytes.size(), file) != filterBytes.size()) {
      std::fprintf(stderr, "hnswlib_bench: cannot read %s\n", options.filters.c_str());
      return 2;
    }
    std::fclose(file);
  }
  std::unique_ptr<ColumnFilter> filter;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
  reply("{\"ok\":true,\"ready\":true,\"library\":\"hnswlib-c++\",\"version\":\"hnswlib-node bundled header\"}");

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command;
    words >> command;
    if (command == "close") {
      index.reset();
      reply("{\"ok\":true}");
      return 0;
    }
    if (command == "build") {
      size_t threads = 1;
      words >> threads;
      index.reset();
      const long before = residentBytes();
      const auto start = std::chrono::steady_clock::now();
      index = std::make_unique<hnswlib::HierarchicalNSW<float>>(space.get(), options.count, options.m, options.efConstruct, 100);
      // Rows handed out through one atomic counter, as hnswlib's own ParallelFor does.
      std::atomic<size_t> next(0);
      auto work = [&]() {
        for (size_t row = next.fetch_add(1); row < options.count; row = next.fetch_add(1)) {
          index->addPoint(base.data() + row * options.dimension, row);
        }
      };
      std::vector<std::thread> workers;
      for (size_t thread = 1; thread < threads; thread += 1) workers.emplace_back(work);
      work();
      for (std::thread& worker : workers) worker.join();
      const double buildMs = millisecondsSince(start);
      const long growth = residentBytes() - before;
      std::ostringstream json;
      json << "{\"ok\":true,\"buildMs\":" << buildMs << ",\"rssGrowthBytes\":" << growth << ",\"indexBytes\":" << index->indexFileSize() << "}";
      reply(json.str());
      continue;
    }
    if (command == "search") {
      size_t ef = 0;
      std::string output;
      words >> ef >> output;
      if (!index || ef == 0 || output.empty()) {
        reply("{\"ok\":false,\"error\":\"search needs a built index, an ef and an output path\"}");
        continue;
      }
      index->setEf(ef);
      std::vector<int32_t> found(options.queryCount * options.k, -1);
      const auto start = std::chrono::steady_clock::now();
      for (size_t query = 0; query < options.queryCount; query += 1) {
        auto result = index->searchKnn(queries.data() + query * options.dimension, options.k, filter.get());
        // The queue pops farthest first: fill from the back so position 0 is the nearest.
        size_t position = result.size();
        while (!result.empty()) {
          position -= 1;
          found[query * options.k + position] = int32_t(result.top().second);
          result.pop();
        }
      }
      const double searchMs = millisecondsSince(start);
      std::FILE* file = std::fopen(output.c_str(), "wb");
      const bool written = file != nullptr && std::fwrite(found.data(), sizeof(int32_t), found.size(), file) == found.size();
      if (file != nullptr) std::fclose(file);
      if (!written) {
        reply("{\"ok\":false,\"error\":\"cannot write the output file\"}");
        continue;
      }
      std::ostringstream json;
      json << "{\"ok\":true,\"searchMs\":" << searchMs << "}";
      reply(json.str());
      continue;
    }
    if (command == "filter") {
      std::string column;
      words >> column;
      if (column == "none") {
        filter.reset();
        reply("{\"ok\":true,\"allowed\":0}");
        continue;
      }
      const size_t chosen = column.empty() ? options.filterColumns : std::stoul(column);
      if (chosen >= options.filterColumns) {
        reply("{\"ok\":false,\"error\":\"no such filter column (start with --filters and --filter-columns)\"}");
        continue;
      }
      const uint8_t* bytes = filterBytes.data() + chosen * options.count;
      size_t allowed = 0;
      for (size_t point = 0; point < options.count; point += 1) allowed += bytes[point] != 0;
      filter = std::make_unique<ColumnFilter>(bytes);
      std::ostringstream json;
      json << "{\"ok\":true,\"allowed\":" << allowed << "}";
      reply(json.str());
      continue;
    }
    if (command == "overhead") {
      reply("{\"ok\":true,\"emptyLoopMs\":0}");
      continue;
    }
    reply("{\"ok\":false,\"error\":\"unknown command\"}");
  }
  return 0;
}
