// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the bounce area's page logic (bounceslot.c,
 * and the area's size, bouncearea.h), built into bounceslot.c with
 * NVM_KUNIT (the #include at its end); the debug guest alone runs it.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "bounce.h"

/* The bounce area below 64 KiB, per page size (bounce.c). */
static void bounce_test_area_pages(struct kunit *test)
{
	static const struct {
		unsigned long page_size;
		unsigned int pages;
		bool fits;	/* holds the largest payload (XFER header + 16 KiB) */
	} cases[] = {
		{ 4096, 15, true },
		{ 16384, 3, true },
		{ 65536, 0, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int pages = nvm_bounce_pages(cases[i].page_size);

		KUNIT_EXPECT_EQ_MSG(test, pages, cases[i].pages, "page size %lu",
				    cases[i].page_size);
		KUNIT_EXPECT_EQ_MSG(test,
				    DIV_ROUND_UP(NVM_BOUNCE_MAX, cases[i].page_size) <= pages,
				    cases[i].fits, "page size %lu", cases[i].page_size);
		/* Never above 64 KiB, the vm.mmap_min_addr the area relies on. */
		KUNIT_EXPECT_LE(test, (pages + 1) * cases[i].page_size, NVM_BOUNCE_TOP);
	}
}

/* A one-slot area of no address space: the page logic of bounce.c alone. */
static struct nvm_bounce *bounce_test_slot_area(struct kunit *test)
{
	struct nvm_bounce *b;

	if (!NVM_CAN_SEAL)
		kunit_skip(test, "no sealed area below 6.10: no dirty pages, no batches");
	b = kunit_kzalloc(test, struct_size(b, slot, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->mapped = true;
	b->nslots = 1;
	b->npages = NVM_SLOT_PAGES;
	spin_lock_init(&b->slot[0].lock);
	init_waitqueue_head(&b->slot[0].wait);
	return b;
}

/* 64 random bits, in the slot's pages. */
static unsigned long bounce_test_bits(struct rnd_state *rnd)
{
	u64 v = ((u64)prandom_u32_state(rnd) << 32) | prandom_u32_state(rnd);

	return (unsigned long)v & GENMASK(NVM_SLOT_PAGES - 1, 0);
}

/*
 * A waiter whose condition holds makes progress: when
 * nvm_bounce_may_take() lets a call go on, nvm_bounce_take() gives it
 * pages or a batch to run, else the call would loop without sleeping.
 * And a batch takes exactly the dirty pages no call owns, never while
 * another runs; pages given are neither busy nor dirty.  Over slot states
 * of every density, payloads of 1 to 5 pages.
 */
static void bounce_test_slot_progress(struct kunit *test)
{
	struct nvm_bounce *b = bounce_test_slot_area(test);
	struct nvm_bounce_slot *s = &b->slot[0];
	struct rnd_state rnd;
	unsigned int iter, batches = 0, given = 0, waits = 0;

	prandom_seed_state(&rnd, 0x6e766d);
	for (iter = 0; iter < 20000; iter++) {
		unsigned int n = 1 + iter % 5, first = 0, i;
		unsigned long busy, dirty, clean;
		bool cleaning, ok;
		int ret;

		/* Sparse to dense: and-ing or or-ing a second word. */
		busy = bounce_test_bits(&rnd);
		dirty = bounce_test_bits(&rnd);
		switch (iter % 4) {
		case 0:
			busy &= bounce_test_bits(&rnd) & bounce_test_bits(&rnd);
			break;
		case 1:
			busy &= bounce_test_bits(&rnd);
			dirty |= bounce_test_bits(&rnd);
			break;
		case 2:
			busy |= bounce_test_bits(&rnd);
			break;
		}
		dirty &= ~busy;
		cleaning = dirty && !(prandom_u32_state(&rnd) % 3);
		s->busy = busy;
		s->dirty = dirty;
		s->written = 0;
		s->present = bounce_test_bits(&rnd);
		s->cleaning = cleaning;

		ok = nvm_bounce_may_take(b, s, n);
		ret = nvm_bounce_take(b, s, n, &first, &clean);
		if (ok)
			KUNIT_EXPECT_TRUE_MSG(test, !ret || clean,
					      "may take but nothing to do: busy %lx dirty %lx cleaning %d n %u",
					      busy, dirty, cleaning, n);
		if (ok && cleaning)
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "busy %lx dirty %lx n %u", busy, dirty, n);
		if (clean) {
			batches++;
			KUNIT_EXPECT_NE(test, ret, 0);
			KUNIT_EXPECT_FALSE(test, cleaning);
			KUNIT_EXPECT_EQ(test, clean, dirty);
			KUNIT_EXPECT_TRUE(test, s->cleaning);
			KUNIT_EXPECT_EQ(test, s->busy & clean, clean);
		}
		if (!ret) {
			given++;
			for (i = first; i < first + n; i++) {
				KUNIT_EXPECT_FALSE(test, (busy | dirty) & BIT(i));
				KUNIT_EXPECT_PTR_EQ(test, s->owner[i], current);
				s->owner[i] = NULL;
			}
		} else if (!clean) {
			waits++;
		}
	}
	/* Every outcome was met. */
	KUNIT_EXPECT_GT(test, batches, 0U);
	KUNIT_EXPECT_GT(test, given, 0U);
	KUNIT_EXPECT_GT(test, waits, 0U);
}

/*
 * One thread's calls, each written back by the driver: no call waits,
 * a batch comes once per NVM_SLOT_PAGES calls and cleans the whole slot,
 * and between batches every call takes a mapped page without the mmap
 * lock.
 */
static void bounce_test_slot_one_thread(struct kunit *test)
{
	struct nvm_bounce *b = bounce_test_slot_area(test);
	struct nvm_bounce_slot *s = &b->slot[0];
	unsigned int call, first, batches = 0, locked = 0, calls = 10 * NVM_SLOT_PAGES;
	unsigned long clean;

	s->present = GENMASK(NVM_SLOT_PAGES - 1, 0);
	for (call = 0; call < calls; call++) {
		if (!nvm_bounce_take_mapped(b, s, 1, &first)) {
			locked++;
			if (nvm_bounce_take(b, s, 1, &first, &clean)) {
				KUNIT_ASSERT_NE(test, clean, 0UL);
				batches++;
				KUNIT_EXPECT_EQ(test, hweight_long(clean), NVM_SLOT_PAGES);
				/* nvm_bounce_clean() but the unmap and the insertion. */
				spin_lock(&s->lock);
				s->present |= nvm_bounce_cleaned(s, clean);
				spin_unlock(&s->lock);
				KUNIT_EXPECT_FALSE(test, s->cleaning);
				KUNIT_ASSERT_EQ(test, nvm_bounce_take(b, s, 1, &first, &clean), 0);
				KUNIT_EXPECT_EQ(test, clean, 0UL);
			}
			s->present |= BIT(first);
		}
		/* The driver's write back (its fault), then nvm_bounce_put(). */
		__set_bit(first, &s->written);
		spin_lock(&s->lock);
		nvm_bounce_disown(s, first, 1);
		spin_unlock(&s->lock);
		KUNIT_EXPECT_TRUE(test, s->dirty & BIT(first));
		KUNIT_EXPECT_PTR_EQ(test, s->owner[first], NULL);
	}
	KUNIT_EXPECT_EQ(test, batches, calls / NVM_SLOT_PAGES - 1);
	/* The mmap lock only for a batch. */
	KUNIT_EXPECT_EQ(test, locked, batches);
}

static struct kunit_case nvm_bounce_test_cases[] = {
	KUNIT_CASE(bounce_test_area_pages),
	KUNIT_CASE(bounce_test_slot_progress),
	KUNIT_CASE(bounce_test_slot_one_thread),
	{}
};

static struct kunit_suite nvm_bounce_suite = {
	.name = "nvmediate_bounce",
	.test_cases = nvm_bounce_test_cases,
};

kunit_test_suite(nvm_bounce_suite);
