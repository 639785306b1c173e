// The demo's scripted customer-support conversation: one customer (Maya Okafor)
// and one agent (Sam, Northwind Home support), a user and an assistant message
// per turn. Turns 1–60 are a written story — a leaking espresso machine and a
// missing mug turned into refunds, a return, a replacement, an address that
// changes on April 1, a switch from email to SMS updates, and the small talk
// real chats have. Past turn 60 the customer keeps coming back with follow-up
// orders: a six-turn episode that repeats with a new order number, item,
// amount and date each time, so any turn number has its messages.
//
// Everything is a pure function of the turn number: the same turn always has
// the same messages, which is what lets a second run on the same database
// continue exactly where the first one stopped.

/** The written story, turns 1–60, as [user, assistant] pairs. */
const SCRIPTED_TURNS = [
  // 1–8: the broken espresso machine
  [
    "Hi, I'm Maya Okafor. My Brava Duo espresso machine from order #NW-48213 arrived on March 7 and the steam wand leaks every time I use it.",
    "Hello Maya, I'm Sam from Northwind Home support. I'm sorry the machine is leaking. I can see order #NW-48213 for one Brava Duo at $429.00, placed on March 3 and delivered to 14 Larch Street, Apt 3B, Portland, OR 97205. Is that right?",
  ],
  [
    'Yes, that is the right order and address. The leak starts as soon as the wand heats up and there is a puddle under the drip tray within a minute.',
    'Thank you for the detail. A leak at the wand usually means a faulty seal, and that is covered by the manufacturer warranty for 2 years. Could you send a photo or a short video of the leak to support@northwindhome.example?',
  ],
  [
    'Sure, give me a second.',
    'No problem, take your time.',
  ],
  [
    "I just emailed the video from maya.okafor@example.com, the subject is 'leaking wand NW-48213'.",
    "Got it, the video arrived and the leak is clear. I have opened case CS-20931 for it. You can choose a full refund of $429.00 after a return, or a replacement unit shipped at no cost.",
  ],
  [
    "Honestly I would rather have a refund than wait for a replacement. I've had the machine less than a week and I don't trust this model now.",
    'Understood, I will process a refund instead of a replacement. The refund of $429.00 goes back to your Visa ending in 4417 once the return is scanned by the carrier, usually within 3 business days.',
  ],
  [
    'How do I send it back? I threw away the outer shipping box.',
    "That's fine. I am emailing you a prepaid return label, RMA-7731, and any sturdy box works. Pack the machine with the water tank removed and drop it at any UPS location before March 28.",
  ],
  [
    'Thanks, that is really helpful.',
    "You're welcome!",
  ],
  [
    'By the way, is it always this rainy in March where your team is? It has not stopped here for a week.',
    "Ha, we're in Portland too, so I feel your pain. The forecast says it clears up by the weekend. Fingers crossed.",
  ],
  // 9–16: the missing mug and a goodwill credit
  [
    'One more thing. My other order #NW-48377, the set of 4 stoneware mugs, came with only 3 mugs in the box.',
    'Sorry about that. Order #NW-48377 is a set of 4 mugs for $36.00. I can refund the missing mug, which is $9.00, or ship a single replacement mug. Which would you prefer?',
  ],
  [
    'Please just refund the $9.00, I only ever use three anyway.',
    'Done. I have issued a $9.00 refund for order #NW-48377 to your Visa ending in 4417. It should appear within 5 business days, and I noted it on case CS-20931 as well.',
  ],
  [
    'Okay.',
    'Is there anything else I can help with on either order today?',
  ],
  [
    "I am honestly a bit frustrated. Two orders in one week and both had problems. I've been a customer since 2019.",
    "That's completely fair, and I'm sorry. As a goodwill gesture I've added $25.00 in store credit to your account, and it never expires. It applies automatically at checkout.",
  ],
  [
    'That is kind of you, thank you.',
    'Of course. Thank you for being patient with us.',
  ],
  [
    'Can I use the store credit together with the promo code SPRING15 from your newsletter?',
    'Yes, SPRING15 gives 15% off orders over $50 until April 30, and it stacks with the $25.00 store credit. The discount applies first, then the credit.',
  ],
  [
    "Great, I'm thinking about a proper burr grinder then, since I'll be making coffee by hand for a while.",
    'Good idea. The Kessel C40 grinder is $149.00 and very well reviewed. With SPRING15 it would be $126.65, and with your credit $101.65.',
  ],
  [
    'Let me think about it over the weekend.',
    'Sure, no rush at all. The credit and the code will be waiting.',
  ],
  // 17–24: the return, the refund, and the move
  [
    'Update: I dropped the espresso machine at the UPS store on Hawthorne this morning, March 20. The clerk scanned the RMA-7731 label.',
    'Thank you! I can see the first scan on RMA-7731 from March 20 at 10:42. The refund of $429.00 will be released as soon as the parcel reaches our warehouse in Reno, usually 3 to 4 days.',
  ],
  [
    'Will I get an email when the refund is processed?',
    'Yes, you will get an email at maya.okafor@example.com the day the refund is released, with the amount and the last four digits of the card.',
  ],
  [
    'Perfect.',
    'Anything else for today?',
  ],
  [
    'Actually yes. I decided to order the Kessel C40 grinder after all.',
    'Lovely. I have placed order #NW-48650 for the Kessel C40 at $149.00, minus 15% with SPRING15 and minus your $25.00 credit: $101.65 charged to the Visa ending in 4417. It ships within 2 days.',
  ],
  [
    "Wait, before it ships: I'm moving on April 1. Can you send it to my new address instead?",
    "Of course. What's the new address? I'll hold order #NW-48650 until you confirm it.",
  ],
  [
    'The new address is 220 Harbor View Road, Unit 12, Seattle, WA 98121. Please use it for everything from now on.',
    'Updated. Order #NW-48650 will ship to 220 Harbor View Road, Unit 12, Seattle, WA 98121, and I have made it the default address on your account, replacing 14 Larch Street in Portland.',
  ],
  [
    'Moving to Seattle, so I guess I am trading rain for more rain.',
    "At least Seattle coffee shops will keep you busy until the grinder arrives. Good luck with the move!",
  ],
  [
    'Thanks. The movers come on March 31, so I will be offline for a couple of days.',
    'No problem. I have added a note that deliveries should not arrive before April 1, and the grinder is scheduled to arrive on April 3.',
  ],
  // 25–32: refund confirmed, grinder delivery
  [
    'Hi again, it is Maya. I got the email that the $429.00 refund went through on March 24. Thank you.',
    'Welcome back, Maya! Yes, the warehouse received the machine on March 23, and the $429.00 refund was released on March 24. Case CS-20931 is now resolved for the espresso machine.',
  ],
  [
    'And the $9.00 for the mug was refunded too, I saw it on my statement.',
    'Great, so both refunds are complete: $429.00 for order #NW-48213 and $9.00 for order #NW-48377, both to the Visa ending in 4417.',
  ],
  [
    'How is my grinder order doing?',
    'Order #NW-48650 left the Reno warehouse on April 1 with UPS tracking 1Z-884-207-3315. It is due at 220 Harbor View Road, Unit 12, Seattle on April 3.',
  ],
  [
    'Ok, good.',
    'Let me know if anything changes.',
  ],
  [
    'The move went fine, by the way. My cat hid under the bed for a whole day.',
    "Glad to hear it went well! Cats usually need a few days to forgive you for a move. Give her time and treats.",
  ],
  [
    'The grinder arrived today, April 3, and it works beautifully.',
    "That's wonderful news. Order #NW-48650 shows as delivered at 11:05 on April 3. Enjoy the fresh coffee!",
  ],
  [
    'Thank you so much.',
    'My pleasure.',
  ],
  [
    'I might want a new espresso machine eventually, but a different brand.',
    'When you are ready, the Lumo S1 at $389.00 is our most reliable model, with a 3 year warranty. I can send you a note if it goes on sale.',
  ],
  // 33–40: the SMS preference, a mis-shipped order
  [
    'Yes please, but do not email me. I get far too many emails. Can you switch my updates to text messages?',
    'Sure. Which mobile number should we use for text messages?',
  ],
  [
    'Please use +1 503-555-0147. I want SMS only from now on, no emails at all.',
    'Done. Your contact preference is now SMS only, at +1 503-555-0147, and order and marketing emails to maya.okafor@example.com are turned off. I will text you if the Lumo S1 goes on sale.',
  ],
  [
    'Will the SMS also cover delivery updates?',
    'Yes, every shipping and delivery update will go to +1 503-555-0147 by SMS from now on.',
  ],
  [
    'Good.',
    'Anything else I can do today?',
  ],
  [
    'Yes, actually. I ordered an electric kettle yesterday, order #NW-49120, and the confirmation shows my old Portland address. Did the change not stick?',
    'I see it. Order #NW-49120, a Fellow Corvo kettle at $89.50, was placed on April 9 with the old address, 14 Larch Street, because a saved address in your browser was used at checkout. I am sorry for the confusion.',
  ],
  [
    'It has not shipped yet, has it? I do not live there anymore.',
    'It shipped this morning, April 10, unfortunately. I have asked UPS to reroute parcel 1Z-884-311-0926 to 220 Harbor View Road, Unit 12, Seattle, WA 98121. Rerouting takes 1 to 2 extra days.',
  ],
  [
    'What happens if the reroute fails?',
    'If UPS cannot reroute it, the parcel comes back to us and I will send a new kettle to Seattle at no cost, with express shipping. Either way you will not pay twice.',
  ],
  [
    'Ok, fine.',
    'I will keep an eye on it for you.',
  ],
  // 41–48: reroute, shipping refund, deleting the old address
  [
    'I got a text that the kettle is now heading to Seattle.',
    'Yes, the reroute of 1Z-884-311-0926 was accepted on April 11. The new delivery date is April 13, and I refunded the $14.95 express shipping fee for order #NW-49120 since the delay was on our side.',
  ],
  [
    'That is fair, thank you for refunding the shipping.',
    "You're welcome. The $14.95 goes back to the Visa ending in 4417 within 5 business days.",
  ],
  [
    'Can you delete the old Portland address from my account entirely, so this does not happen again?',
    'Done. I removed 14 Larch Street, Apt 3B, Portland, OR 97205 from your account. The only saved address is now 220 Harbor View Road, Unit 12, Seattle, WA 98121.',
  ],
  [
    'Thanks.',
    'Anytime.',
  ],
  [
    'I am making pour-over coffee every morning now. Any tips for a light roast?',
    'For a light roast, try a finer grind on the Kessel C40, around setting 14, water at 96 degrees, and a 1:16 ratio. Many customers like a 3 minute total brew time.',
  ],
  [
    'I will try that tomorrow.',
    'Let me know how it turns out!',
  ],
  [
    'The kettle arrived on April 13 as promised. It looks great.',
    'Excellent. Order #NW-49120 is marked delivered on April 13 at 14:20 at 220 Harbor View Road. I have closed the reroute ticket.',
  ],
  [
    'Is there a warranty on the kettle?',
    'Yes, the Fellow Corvo kettle has a 1 year warranty from the delivery date, so until April 13 next year. Keep the order number #NW-49120 handy if you ever need it.',
  ],
  // 49–56: a damaged lid, a partial refund, loyalty points
  [
    'Hmm, looking closer the kettle lid has a small scratch on top. It is cosmetic but I paid full price.',
    'Sorry about that. Since it is cosmetic, I can offer a partial refund of $15.00 and you keep the kettle, or a full exchange. Which would you prefer?',
  ],
  [
    'The partial refund is fine, I do not want to go through another return.',
    'Understood. I have issued a partial refund of $15.00 on order #NW-49120 to the Visa ending in 4417. You will get an SMS at +1 503-555-0147 when it is processed.',
  ],
  [
    'Great, thanks.',
    'Happy to help.',
  ],
  [
    'How many loyalty points do I have now?',
    'You have 1,240 loyalty points. At 1,500 points you get a $20.00 voucher, so you are 260 points away.',
  ],
  [
    'Do refunded orders take points away?',
    'Yes, points for refunded amounts are removed. The $429.00 espresso machine refund removed 429 points, which is already reflected in your 1,240.',
  ],
  [
    'That makes sense.',
    'Anything else on your mind?',
  ],
  [
    'My sister Ada also wants the Kessel C40 grinder. Can she use my promo code?',
    'SPRING15 is a public code, so Ada can use it on her own account until April 30. Your store credit cannot be transferred, though.',
  ],
  [
    'Ok, I will tell her.',
    'Sounds good.',
  ],
  // 57–60: wrapping up
  [
    'Can you summarize where everything stands? I want to make sure nothing is still open.',
    'Of course. Refunds: $429.00 for #NW-48213, $9.00 for #NW-48377, $14.95 shipping and $15.00 partial for #NW-49120. The grinder #NW-48650 and kettle #NW-49120 are delivered to Seattle. Updates go by SMS only.',
  ],
  [
    'And the $25.00 store credit was used on the grinder, right?',
    'Right, the $25.00 credit was applied to order #NW-48650 on March 21, so your credit balance is now $0.00.',
  ],
  [
    'Then we are all set. Thank you for all the help, Sam.',
    'It was a pleasure, Maya. Case CS-20931 is closed, and I will text you at +1 503-555-0147 if the Lumo S1 goes on sale.',
  ],
  [
    'Have a nice day!',
    'You too, and enjoy the new place in Seattle!',
  ],
];

/** What the customer buys in the follow-up episodes, in rotation. */
const FOLLOW_UP_ITEMS = [
  { item: 'Lumo S1 espresso machine', price: 389.0 },
  { item: 'set of 2 glass carafes', price: 42.5 },
  { item: 'Kessel C40 replacement burr', price: 28.0 },
  { item: 'digital coffee scale', price: 59.99 },
  { item: 'ceramic pour-over dripper', price: 34.0 },
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "May 4" for a day counted from May 1 of the story's year (UTC, no locale). */
function storyDate(daysAfterMayFirst) {
  const date = new Date(Date.UTC(2025, 4, 1 + daysAfterMayFirst));
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;
}

const money = (amount) => `$${amount.toFixed(2)}`;

/**
 * The six-turn follow-up episode: a new order ships late, gets tracked, a
 * shipping refund is agreed, and the delivery is confirmed. `episode` numbers
 * the repetition (0 for turns 61–66), and changes the order number, the item,
 * the dates and the amounts.
 */
const FOLLOW_UP_EPISODE = [
  ({ order, item, price, placed }) => [
    `Hi Sam, Maya again. I placed order ${order} for a ${item} on ${placed}, and it still has not shipped.`,
    `Hi Maya! Order ${order}, the ${item} at ${money(price)}, is waiting for stock at the Reno warehouse. It is due to ship within 2 days, to 220 Harbor View Road, Unit 12, Seattle.`,
  ],
  ({ order, shipped }) => [
    'Can you make sure the updates come by text message, not email?',
    `Yes, your preference is still SMS only at +1 503-555-0147. You will get a text when ${order} ships, expected on ${shipped}.`,
  ],
  () => ['Ok, thanks.', 'You are welcome.'],
  ({ order, shipped, tracking }) => [
    `It shipped on ${shipped}, but the tracking number ${tracking} shows no movement yet.`,
    `I checked ${tracking}: the label for ${order} was created on ${shipped} and UPS picks it up this evening. It should start moving tomorrow.`,
  ],
  ({ order, shippingFee }) => [
    'This is the second time an order of mine has been slow. Can something be done about the shipping fee?',
    `Of course. I have refunded the ${money(shippingFee)} shipping fee on ${order} to the Visa ending in 4417, since the delay was on our side.`,
  ],
  ({ order, delivered }) => [
    `The package arrived on ${delivered}, all in one piece this time.`,
    `Great to hear. ${order} is marked delivered on ${delivered}. Thanks for your patience, Maya!`,
  ],
];

function followUpTurn(turn) {
  const sinceScript = turn - SCRIPTED_TURNS.length - 1;
  const episode = Math.floor(sinceScript / FOLLOW_UP_EPISODE.length);
  const step = sinceScript % FOLLOW_UP_EPISODE.length;
  const { item, price } = FOLLOW_UP_ITEMS[episode % FOLLOW_UP_ITEMS.length];
  const firstDay = episode * 9;
  const facts = {
    order: `#NW-${50100 + episode * 37}`,
    item,
    price,
    placed: storyDate(firstDay),
    shipped: storyDate(firstDay + 2),
    delivered: storyDate(firstDay + 5),
    tracking: `1Z-884-${String(400 + episode).padStart(3, '0')}-${String(1000 + ((episode * 7919) % 9000)).padStart(4, '0')}`,
    shippingFee: 9.95 + (episode % 3) * 2.5,
  };
  return FOLLOW_UP_EPISODE[step](facts);
}

/** How many turns the written story has (the demo's default run). */
export const SCRIPTED_TURN_COUNT = SCRIPTED_TURNS.length;

/**
 * The messages of `turn` (1-based, any positive integer):
 * `[{ role: 'user', content }, { role: 'assistant', content }]`, fresh objects.
 */
export function turnMessages(turn) {
  if (!Number.isInteger(turn) || turn < 1) throw new RangeError(`turn must be a positive integer; got ${turn}`);
  const [user, assistant] = turn <= SCRIPTED_TURNS.length ? SCRIPTED_TURNS[turn - 1] : followUpTurn(turn);
  return [
    { role: 'user', content: user },
    { role: 'assistant', content: assistant },
  ];
}
