// --memory-budget sizes (app/ops/memory_budget.hpp): K, M, G, T are powers of 1024, a plain number is
// bytes; anything else is refused naming the option.
#include "app/ops/memory_budget.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

using namespace satlab;

TEST(MemoryBudget, SizesParseInPowersOf1024) {
  EXPECT_EQ(parse_memory_size("512M"), size_t(512) << 20);
  EXPECT_EQ(parse_memory_size("4G"), size_t(4) << 30);
  EXPECT_EQ(parse_memory_size("4g"), size_t(4) << 30);
  EXPECT_EQ(parse_memory_size("1.5G"), size_t(3) << 29);
  EXPECT_EQ(parse_memory_size("64KiB"), size_t(64) << 10);
  EXPECT_EQ(parse_memory_size("2MB"), size_t(2) << 20);
  EXPECT_EQ(parse_memory_size("1T"), size_t(1) << 40);
  EXPECT_EQ(parse_memory_size("123456789"), size_t(123456789));
  for (const char* bad : {"", "lots", "-1G", "0", "4X", "4 G", "G", "nan", "1e30"}) {
    try {
      parse_memory_size(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--memory-budget"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryBudget, BytesPrintInMiBOrGiBAndTheDefaultIsHalfOfWhatIsAvailable) {
  EXPECT_EQ(format_bytes(uint64_t(512) << 20), "512 MiB");
  EXPECT_EQ(format_bytes(uint64_t(3) << 29), "1.50 GiB");
  EXPECT_EQ(format_bytes(uint64_t(3) << 19), "1.5 MiB");
  const size_t d = default_memory_budget(false);
  EXPECT_GT(d, size_t(0));
  EXPECT_GT(resident_bytes(), uint64_t(0));
  EXPECT_GE(peak_resident_bytes(), resident_bytes());
}
