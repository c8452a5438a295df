// Question pools of the sample benchmarks, in each benchmark's style. The first option is the
// correct one; the planner moves it to the letter it chose.

export interface QuestionTemplate {
  question: string;
  options: string[];
}

export const QUESTION_POOLS: Record<string, QuestionTemplate[]> = {
  MVBench: [
    { question: 'What is the person doing with the cup?', options: ['Pouring water into it', 'Washing it', 'Putting it in a bag', 'Throwing it away'] },
    { question: 'In which direction is the car moving?', options: ['Toward the camera', 'Away from the camera', 'To the left', 'To the right'] },
    { question: 'How many people enter the room?', options: ['Two', 'One', 'Three', 'None'] },
    { question: 'What happens right after the door opens?', options: ['A dog runs in', 'The lights turn off', 'A man sits down', 'Nothing changes'] },
    { question: 'Which object is moved first?', options: ['The red box', 'The blue ball', 'The green bottle', 'The yellow book'] },
    {
      question: 'Is the ball rolling toward or away from the wall, "near" or "far" side?',
      options: ['Toward the wall, near side', 'Away from the wall, far side', 'It does not move', 'It bounces in place'],
    },
    { question: 'What is the order of the actions?', options: ['Open, pour, close', 'Pour, open, close', 'Close, open, pour', 'Open, close, pour'] },
    { question: 'Where does the cat go at the end?', options: ['Under the sofa', 'Onto the table', 'Out the window', 'Into the box'] },
  ],
  NExTQA: [
    {
      question: 'why did the boy pick up the ball at the end',
      options: ['to throw it to the dog', 'to put it in the basket', 'to show it to the camera', 'to give it to his mother', 'to kick it'],
    },
    {
      question: 'what does the lady do after she sits down',
      options: ['drinks from a cup', 'stands up again', 'takes a photo', 'waves at the baby', 'reads a book'],
    },
    {
      question: 'how do the two children interact with each other',
      options: ['they share a toy', 'they ignore each other', 'they argue loudly', 'they dance together', 'they race each other'],
    },
    { question: 'where is this video taken', options: ['a park', 'a kitchen', 'a classroom', 'a beach', 'a shop'] },
    {
      question: 'why is the man holding the rope tightly',
      options: ['to keep the boat close', 'to climb the wall', 'to pull a sled', 'to tie a knot', 'to swing across'],
    },
  ],
  EgoSchema: [
    {
      question: "Summarize the main goal of c's actions throughout the video.",
      options: [
        'c prepares a meal by chopping and frying vegetables',
        'c cleans the kitchen after a meal',
        'c repairs a broken cupboard door',
        'c sorts groceries into the fridge',
        'c washes dishes and dries them',
      ],
    },
    {
      question: 'What tool does c use most often, and why?',
      options: [
        'A knife, to cut the ingredients',
        'A brush, to paint the wall',
        'A hammer, to fix the shelf',
        'A sponge, to wipe the table',
        'A pen, to write a list',
      ],
    },
    {
      question: 'How does the activity change between the beginning and the end of the video?',
      options: [
        'c moves from preparation to cooking',
        'c stops working and leaves',
        'c repeats the same step without change',
        'c switches from cooking to cleaning the floor',
        'c starts a phone call',
      ],
    },
    {
      question: 'Which sentence best describes c’s interaction with the other person — café owner or customer?',
      options: [
        'c serves the customer coffee',
        'c buys a pastry from the owner',
        'c asks the owner for directions',
        'c repairs the coffee machine',
        'c ignores the customer',
      ],
    },
  ],
  LVBench: [
    {
      question: 'When does the speaker first mention the budget?',
      options: ['(00:12:30-00:13:10)', '(00:02:00-00:02:40)', '(00:25:10-00:25:50)', '(00:31:00-00:31:30)'],
    },
    {
      question: 'What is the main topic of the second half of the video?',
      options: ['Team results of the season', 'A cooking recipe', 'The weather forecast', 'A travel plan'],
    },
    { question: 'How many times does the goalkeeper save a penalty?', options: ['Twice', 'Never', 'Once', 'Three times'] },
    { question: 'What does the presenter hold while explaining the chart?', options: ['A pointer', 'A coffee mug', 'A microphone', 'A notebook'] },
    {
      question: 'Which event happens before the interview begins?',
      options: ['The audience applauds', 'The lights go out', 'A song is played', 'The host leaves'],
    },
  ],
  TimeScope: [
    { question: 'What color was the sign shown near the middle of the video?', options: ['Blue', 'Red', 'Green', 'Yellow'] },
    { question: 'What number appeared on the screen for a short moment?', options: ['42', '17', '88', '5'] },
    { question: 'Which animal was shown briefly among the scenes?', options: ['A fox', 'A horse', 'An owl', 'A turtle'] },
    {
      question: 'How long does the inserted clip of the clock last?',
      options: ['About 10 seconds', 'About 1 minute', 'About 3 minutes', 'Less than 1 second'],
    },
  ],
};

/** The one question that carries markup, for the webview escaping test. */
export const XSS_QUESTION = 'What does the caption say? <img src=x onerror=alert(1)>';
export const XSS_OPTIONS = ['A warning about the weather', 'The name of the city', 'A phone number', 'Nothing'];
