#include "app/io/depth_track.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <tuple>

#include "app/io/atomic_file.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

constexpr int kMaxBoxes = 1 << 16;  // boxes walked at one level, at most (a hostile file's endless chain)
constexpr size_t kMaxMap = 64;      // auxiliary tracks, at most

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
uint64_t be64(const uint8_t* p) { return uint64_t(be32(p)) << 32 | be32(p + 4); }
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}
void put64(uint8_t* p, uint64_t v) { put32(p, uint32_t(v >> 32)), put32(p + 4, uint32_t(v)); }

struct Box {
  uint64_t start = 0, header = 0, end = 0;
  char type[5] = {0, 0, 0, 0, 0};
  uint64_t body() const { return start + header; }
  bool is(const char* t) const { return std::memcmp(type, t, 4) == 0; }
};

// The box at pos within [pos, limit); false at limit. Throws satlab::Error where its header is cut short or
// its size overruns the limit.
bool box_at(const ByteSource& s, uint64_t pos, uint64_t limit, Box* b) {
  if (pos >= limit) return false;
  uint8_t h[16];
  if (limit - pos < 8 || !s.read(pos, 8, h)) throw Error("a box header at offset " + std::to_string(pos) + " is cut short");
  b->start = pos, b->header = 8;
  std::memcpy(b->type, h + 4, 4);
  uint64_t size = be32(h);
  if (size == 1) {
    if (limit - pos < 16 || !s.read(pos + 8, 8, h + 8))
      throw Error("a box header at offset " + std::to_string(pos) + " is cut short");
    size = be64(h + 8), b->header = 16;
  } else if (size == 0) {
    size = limit - pos;  // to the end of its parent
  }
  if (size < b->header || size > limit - pos)
    throw Error("box '" + std::string(b->type) + "' at offset " + std::to_string(pos) + " (" + std::to_string(size) +
                " bytes) overruns its parent");
  b->end = pos + size;
  return true;
}

// The first child of type t in [from, to); false where there is none.
bool find_child(const ByteSource& s, uint64_t from, uint64_t to, const char* t, Box* out) {
  Box b;
  int n = 0;
  for (uint64_t pos = from; box_at(s, pos, to, &b); pos = b.end) {
    if (++n > kMaxBoxes) throw Error("more than " + std::to_string(kMaxBoxes) + " boxes in one box");
    if (b.is(t)) {
      *out = b;
      return true;
    }
  }
  return false;
}

std::vector<uint8_t> bytes(const ByteSource& s, uint64_t at, uint64_t n) {
  if (n > (1u << 20)) throw Error("a metadata value of " + std::to_string(n) + " bytes");
  std::vector<uint8_t> v(static_cast<size_t>(n), 0);
  if (n && !s.read(at, size_t(n), v.data())) throw Error("a metadata value at offset " + std::to_string(at) + " is cut short");
  return v;
}

// A moov.meta box's mdta items: key -> value bytes. Its body starts with a full box's 4 bytes (ISO) or
// with its first child (QuickTime): either is read.
std::vector<std::pair<std::string, std::vector<uint8_t>>> meta_items(const ByteSource& s, const Box& meta) {
  uint64_t first = meta.body();
  {
    uint8_t h[8];
    if (meta.end - first >= 12 && s.read(first + 4, 8, h) && std::memcmp(h + 4, "hdlr", 4) == 0) first += 4;
  }
  Box keys, ilst;
  if (!find_child(s, first, meta.end, "keys", &keys) || !find_child(s, first, meta.end, "ilst", &ilst)) return {};
  // keys: version and flags, a count, then (size, namespace, key) entries.
  std::vector<uint8_t> k = bytes(s, keys.body(), keys.end - keys.body());
  if (k.size() < 8) throw Error("a keys box is cut short");
  const uint32_t count = be32(k.data() + 4);
  std::vector<std::string> names;
  size_t at = 8;
  for (uint32_t i = 0; i < count; ++i) {
    if (k.size() - at < 8) throw Error("the keys box holds fewer keys than it counts");
    const uint32_t n = be32(k.data() + at);
    if (n < 8 || n > k.size() - at) throw Error("a key overruns the keys box");
    names.emplace_back(reinterpret_cast<const char*>(k.data() + at + 8), n - 8);
    at += n;
  }
  // ilst: an item per key (its type field is the key's 1-based index) holding a data box.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> items;
  Box item;
  int seen = 0;
  for (uint64_t pos = ilst.body(); box_at(s, pos, ilst.end, &item); pos = item.end) {
    if (++seen > kMaxBoxes) throw Error("more than " + std::to_string(kMaxBoxes) + " metadata items");
    uint8_t t[4];
    std::memcpy(t, item.type, 4);
    const uint32_t index = be32(t);
    Box data;
    if (index == 0 || index > names.size() || !find_child(s, item.body(), item.end, "data", &data)) continue;
    if (data.end - data.body() < 8) throw Error("a metadata data box is cut short");
    items.emplace_back(names[index - 1], bytes(s, data.body() + 8, data.end - data.body() - 8));
  }
  return items;
}

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : f_(std::fopen(path.c_str(), "rb")) {
    if (f_ && std::fseek(f_, 0, SEEK_END) == 0) {
      const long n = std::ftell(f_);
      size_ = n > 0 ? uint64_t(n) : 0;
    }
  }
  ~FileSource() override {
    if (f_) std::fclose(f_);
  }
  bool ok() const { return f_ != nullptr; }
  uint64_t size() const override { return size_; }
  bool read(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > size_ || n > size_ - offset) return false;
    return std::fseek(f_, long(offset), SEEK_SET) == 0 && std::fread(out, 1, n, f_) == n;
  }

 private:
  std::FILE* f_;
  uint64_t size_ = 0;
};

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// An mdta meta box: hdlr 'mdta', keys, ilst of (key, type indicator, value).
std::vector<uint8_t> meta_box(const std::vector<std::tuple<std::string, uint32_t, std::vector<uint8_t>>>& items) {
  std::vector<uint8_t> hdlr(33, 0), keys(16), ilst(8);
  put32(hdlr.data(), 33), std::memcpy(hdlr.data() + 4, "hdlr", 4), std::memcpy(hdlr.data() + 16, "mdta", 4);
  std::memcpy(keys.data() + 4, "keys", 4), put32(keys.data() + 12, uint32_t(items.size()));
  std::memcpy(ilst.data() + 4, "ilst", 4);
  uint32_t index = 0;
  for (const auto& [key, type, value] : items) {
    std::vector<uint8_t> e(8 + key.size());
    put32(e.data(), uint32_t(e.size())), std::memcpy(e.data() + 4, "mdta", 4), std::memcpy(e.data() + 8, key.data(), key.size());
    keys.insert(keys.end(), e.begin(), e.end());
    std::vector<uint8_t> it(8 + 16 + value.size());
    put32(it.data(), uint32_t(it.size())), put32(it.data() + 4, ++index);
    put32(it.data() + 8, uint32_t(16 + value.size())), std::memcpy(it.data() + 12, "data", 4);
    put32(it.data() + 16, type), put32(it.data() + 20, 0);
    std::copy(value.begin(), value.end(), it.begin() + 24);
    ilst.insert(ilst.end(), it.begin(), it.end());
  }
  put32(keys.data(), uint32_t(keys.size())), put32(ilst.data(), uint32_t(ilst.size()));
  std::vector<uint8_t> meta(12, 0);
  std::memcpy(meta.data() + 4, "meta", 4);
  meta.insert(meta.end(), hdlr.begin(), hdlr.end());
  meta.insert(meta.end(), keys.begin(), keys.end());
  meta.insert(meta.end(), ilst.begin(), ilst.end());
  put32(meta.data(), uint32_t(meta.size()));
  return meta;
}

// The file's last top-level box, which must be its moov (FFmpeg writes ftyp, mdat, moov).
Box last_moov(const std::vector<uint8_t>& f, const std::string& what) {
  const MemorySource s(f.data(), f.size());
  Box b, last;
  for (uint64_t pos = 0; box_at(s, pos, f.size(), &b); pos = b.end) last = b;
  if (!last.is("moov") || last.header != 8) throw Error(what + ": its moov is not its last box");
  return last;
}

// Adds `delta` to every chunk offset (stco, co64) of the moov at `moov`.
void rebase_chunks(std::vector<uint8_t>& f, const Box& moov, uint64_t delta) {
  const MemorySource s(f.data(), f.size());
  std::vector<Box> stack{moov};
  while (!stack.empty()) {
    const Box p = stack.back();
    stack.pop_back();
    Box b;
    for (uint64_t pos = p.body(); box_at(s, pos, p.end, &b); pos = b.end) {
      if (b.is("trak") || b.is("mdia") || b.is("minf") || b.is("stbl")) stack.push_back(b);
      const bool wide = b.is("co64");
      if (!b.is("stco") && !wide) continue;
      const uint32_t n = be32(&f[size_t(b.body() + 4)]);
      for (uint32_t i = 0; i < n; ++i) {
        uint8_t* e = &f[size_t(b.body() + 8 + uint64_t(i) * (wide ? 8 : 4))];
        if (wide) put64(e, be64(e) + delta);
        else put32(e, uint32_t(be32(e) + delta));
      }
    }
  }
}

}  // namespace

bool MemorySource::read(uint64_t offset, size_t n, uint8_t* out) const {
  if (offset > size_ || n > size_ - offset) return false;
  std::memcpy(out, data_ + offset, n);
  return true;
}

std::string Mp4AtInfo::describe() const {
  if (!found) return "no MP4-AT auxiliary tracks";
  if (depth_track < 0) return "MP4-AT without a depth track";
  return "MP4-AT depth track " + std::to_string(depth_track) + (inverse ? " (inverse depth)" : " (linear depth)") +
         (interleaved ? ", interleaved" : "");
}

Mp4AtInfo parse_mp4at(const ByteSource& src) {
  Mp4AtInfo info;
  const uint64_t n = src.size();
  {  // an ISO file starts with a box: anything else is no MP4 (and so no MP4-AT)
    uint8_t h[8];
    if (n < 8 || !src.read(0, 8, h) || std::memcmp(h + 4, "ftyp", 4) != 0) return info;
  }
  // The top level: a damaged box there ends the walk quietly (a cut ordinary MP4 is FFmpeg's to report).
  Box b, axte;
  int count = 0;
  try {
    for (uint64_t pos = 0; box_at(src, pos, n, &b) && ++count <= kMaxBoxes; pos = b.end) {
      if (b.is("moov")) info.moov_start = b.start;
      if (b.is("axte")) {
        axte = b;
        info.found = true;
        break;
      }
    }
  } catch (const Error&) {
    if (!info.found) return info;
  }
  if (!info.found) return info;
  info.axte_start = axte.start, info.axte_header = axte.header, info.axte_end = axte.end;
  try {
    Box moov, meta;
    if (!find_child(src, axte.body(), axte.end, "moov", &moov)) throw Error("it holds no moov box");
    if (!find_child(src, moov.body(), moov.end, "meta", &meta)) throw Error("its moov has no meta box");
    bool have_map = false;
    for (const auto& [key, value] : meta_items(src, meta)) {
      if (key == "auxiliary.tracks.map") {
        if (value.empty() || value.size() > kMaxMap)
          throw Error("auxiliary.tracks.map names " + std::to_string(value.size()) + " tracks");
        info.map = value, have_map = true;
      } else if (key == "auxiliary.tracks.interleaved") {
        if (value.empty()) throw Error("auxiliary.tracks.interleaved is empty");
        info.interleaved = value.back() != 0;
      }
    }
    if (!have_map) throw Error("its metadata has no auxiliary.tracks.map");
  } catch (const Error& e) {
    throw Error(std::string("the MP4-AT auxiliary tracks (axte box at offset ") + std::to_string(axte.start) +
                ") are damaged: " + e.what());
  }
  for (size_t i = 0; i < info.map.size() && info.depth_track < 0; ++i)
    if (info.map[i] == 1 || info.map[i] == 2) info.depth_track = int(i), info.inverse = info.map[i] == 2;
  if (info.interleaved && info.moov_start == 0)  // (offset 0 is the ftyp) hidden to show the inner moov
    throw Error("the MP4-AT file is interleaved but has no moov box before its auxiliary tracks");
  return info;
}

Mp4AtInfo find_mp4at(const std::string& path) {
  FileSource f(path);
  if (!f.ok()) return {};
  try {
    return parse_mp4at(f);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

Mp4AtView mp4at_view(const Mp4AtInfo& info, uint64_t file_size) {
  Mp4AtView v;
  if (!info.found) throw Error("no MP4-AT auxiliary tracks");
  if (!info.interleaved) {
    v.start = info.axte_start + info.axte_header, v.end = info.axte_end;
    return v;
  }
  v.start = 0, v.end = file_size;
  v.patches.push_back({info.moov_start + 4, {'f', 'r', 'e', 'e'}});
  std::vector<uint8_t> h(size_t(info.axte_header), 0);
  put32(h.data(), uint32_t(info.axte_header));
  std::memcpy(h.data() + 4, "free", 4);
  v.patches.push_back({info.axte_start, h});
  return v;
}

void write_mp4at(const std::string& primary, const std::string& auxiliary, const std::vector<uint8_t>& map,
                 bool interleaved, const std::string& out) {
  std::vector<uint8_t> p = read_all(primary), a = read_all(auxiliary);
  const Box pm = last_moov(p, primary), am = last_moov(a, auxiliary);
  // The outer meta's values: the axte box's offset and length, known once the meta's own size is.
  std::vector<uint8_t> zero8(8, 0);
  std::vector<uint8_t> outer = meta_box({{"auxiliary.tracks.offset", 78, zero8}, {"auxiliary.tracks.length", 78, zero8}});
  std::vector<uint8_t> inner = meta_box({{"auxiliary.tracks.interleaved", 75, {uint8_t(interleaved ? 1 : 0)}},
                                         {"auxiliary.tracks.map", 0, map}});
  const uint64_t axte_start = p.size() + outer.size();
  if (interleaved) rebase_chunks(a, am, axte_start + 8);  // the auxiliary's samples at their offsets in the file
  put32(&a[size_t(am.start)], uint32_t(am.end - am.start + inner.size()));
  a.insert(a.end(), inner.begin(), inner.end());
  const uint64_t axte_size = 8 + a.size();
  // The values sit at the end of each data box: offset in the first item, length in the second.
  const size_t ilst = outer.size() - 2 * 32;  // two items of 8 + 16 + 8 bytes
  put64(&outer[ilst + 24], axte_start), put64(&outer[ilst + 32 + 24], axte_size);
  put32(&p[size_t(pm.start)], uint32_t(pm.end - pm.start + outer.size()));
  p.insert(p.end(), outer.begin(), outer.end());
  std::vector<uint8_t> h(8);
  put32(h.data(), uint32_t(axte_size)), std::memcpy(h.data() + 4, "axte", 4);
  p.insert(p.end(), h.begin(), h.end());
  p.insert(p.end(), a.begin(), a.end());
  TempFile t(out);
  if (!write_file_checked(t.tmp(), p.data(), p.size())) throw Error(out + ": cannot write (" + std::strerror(errno) + ")");
  t.commit();
}

}  // namespace satlab::io
