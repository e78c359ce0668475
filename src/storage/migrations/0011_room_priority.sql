-- Room runs take priority 1 (after v3 synchronous requests, 0); the other submissions move from 1 to 2.
UPDATE `submissions` SET `priority` = 2 WHERE `priority` = 1;
