// The key table is the one source of the help overlay, `satlab --keys` and the README's controls.
#include "app/gui/keys.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace satlab::gui;

TEST(Keys, ReadmeControlsHoldEveryRowOfTheKeyTable) {
  std::ifstream in(std::string(SATLAB_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in) << "README.md not found under " << SATLAB_SOURCE_DIR;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  for (const KeyBinding& k : kKeyBindings)
    EXPECT_NE(readme.find(markdown_row(k) + "\n"), std::string::npos)
        << "README.md lacks the row (paste it from `satlab --keys`):\n"
        << markdown_row(k);
}

TEST(Keys, PlainDropsMarkdown) {
  EXPECT_EQ(plain("`F1` or `?`"), "F1 or ?");
  EXPECT_EQ(markdown_row({"`R`", "reset"}), "| `R` | reset |");
}
