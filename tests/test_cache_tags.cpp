// core::CacheTags: hits, LRU replacement within a set, dirty victims, the set index, a cache with no sets.
#include <gtest/gtest.h>

#include "tlm/core/cache_tags.h"

using gpuvp::core::CacheTags;

TEST(CacheTags, TheLeastRecentlyUsedWayOfASetMakesRoom) {
  CacheTags tags(2, 2);  // lines with even numbers in set 0 (index = line)
  EXPECT_FALSE(tags.access(0));
  EXPECT_FALSE(tags.access(2));
  EXPECT_TRUE(tags.access(0));  // 0 is now the most recent: 2 goes next
  CacheTags::Victim victim;
  EXPECT_FALSE(tags.access(4, 4, false, victim));
  EXPECT_TRUE(victim.valid);
  EXPECT_EQ(victim.line, 2u);
  EXPECT_FALSE(victim.dirty);
  EXPECT_TRUE(tags.access(0));
  EXPECT_TRUE(tags.access(4));
  EXPECT_FALSE(tags.access(1));  // set 1 is untouched by set 0's lines
  EXPECT_FALSE(tags.access(2));
}

TEST(CacheTags, AWrittenLineIsADirtyVictimAndAClearEmptiesEverySet) {
  CacheTags tags(1, 1);
  CacheTags::Victim victim;
  EXPECT_FALSE(tags.access(0, 7, true, victim));
  EXPECT_FALSE(victim.valid);  // the way was free
  EXPECT_TRUE(tags.access(0, 7, false, victim));
  EXPECT_FALSE(tags.access(5, 9, false, victim));  // the caller's index: taken modulo the one set
  EXPECT_TRUE(victim.valid);
  EXPECT_TRUE(victim.dirty);
  EXPECT_EQ(victim.line, 7u);
  tags.invalidate();
  EXPECT_FALSE(tags.access(0, 9, false, victim));
  EXPECT_FALSE(victim.valid);
}

TEST(CacheTags, ACacheWithoutSetsMissesEveryAccess) {
  CacheTags tags(0, 4);
  EXPECT_FALSE(tags.access(3));
  EXPECT_FALSE(tags.access(3));
  EXPECT_EQ(tags.sets(), 0u);
}
