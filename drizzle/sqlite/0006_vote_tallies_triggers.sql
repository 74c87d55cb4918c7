-- vote_tallies follows votes, whatever writes them (REST, merges moving votes, cascades).
-- Removing a vote only updates an existing tally: a card being deleted may have lost its tallies first.
INSERT INTO `vote_tallies` (`card_id`, `user_id`, `workshop_id`, `positive`, `negative`)
  SELECT `card_id`, `user_id`, `workshop_id`,
         sum(CASE WHEN `value` > 0 THEN `value` ELSE 0 END), sum(CASE WHEN `value` < 0 THEN -`value` ELSE 0 END)
    FROM `votes` GROUP BY `card_id`, `user_id`;
--> statement-breakpoint
CREATE TRIGGER `vote_tallies_on_insert` AFTER INSERT ON `votes`
BEGIN
  INSERT INTO `vote_tallies` (`card_id`, `user_id`, `workshop_id`, `positive`, `negative`)
    VALUES (NEW.`card_id`, NEW.`user_id`, NEW.`workshop_id`, max(NEW.`value`, 0), max(-NEW.`value`, 0))
    ON CONFLICT (`card_id`, `user_id`) DO UPDATE SET
      `positive` = `positive` + max(NEW.`value`, 0),
      `negative` = `negative` + max(-NEW.`value`, 0);
END;
--> statement-breakpoint
CREATE TRIGGER `vote_tallies_on_delete` AFTER DELETE ON `votes`
BEGIN
  UPDATE `vote_tallies` SET `positive` = `positive` - max(OLD.`value`, 0), `negative` = `negative` - max(-OLD.`value`, 0)
    WHERE `card_id` = OLD.`card_id` AND `user_id` = OLD.`user_id`;
  DELETE FROM `vote_tallies` WHERE `card_id` = OLD.`card_id` AND `user_id` = OLD.`user_id` AND `positive` = 0 AND `negative` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `vote_tallies_on_update` AFTER UPDATE OF `value`, `card_id`, `user_id` ON `votes`
BEGIN
  UPDATE `vote_tallies` SET `positive` = `positive` - max(OLD.`value`, 0), `negative` = `negative` - max(-OLD.`value`, 0)
    WHERE `card_id` = OLD.`card_id` AND `user_id` = OLD.`user_id`;
  DELETE FROM `vote_tallies` WHERE `card_id` = OLD.`card_id` AND `user_id` = OLD.`user_id` AND `positive` = 0 AND `negative` = 0;
  INSERT INTO `vote_tallies` (`card_id`, `user_id`, `workshop_id`, `positive`, `negative`)
    VALUES (NEW.`card_id`, NEW.`user_id`, NEW.`workshop_id`, max(NEW.`value`, 0), max(-NEW.`value`, 0))
    ON CONFLICT (`card_id`, `user_id`) DO UPDATE SET
      `positive` = `positive` + max(NEW.`value`, 0),
      `negative` = `negative` + max(-NEW.`value`, 0);
END;
